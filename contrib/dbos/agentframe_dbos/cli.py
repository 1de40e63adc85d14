"""`agentframe submit|worker|status|result|send|cancel`: durable runs on DBOS queues.

Every command names the DBOS system database with `--system-database-url` (or
AGENTFRAME_DBOS_URL): SQLite by default (one machine), PostgreSQL to spread workers over
machines. Workers create the system database; submit after one worker has started once.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import click

from agentframe_core import AgentframeError, Question, data_dir
from agentframe_core.cli import App, emit_json, handle_errors, pass_app

from .database import database_error, missing, quiet_dbos, system_engine
from .lease import ExecutorLease, LeaseLostError
from .names import (
    ANSWER_TOPIC,
    QUESTION_PREFIX,
    QUESTION_WORKFLOW,
    WAITING_EVENT,
    WORKFLOW_NAME,
    question_workflow_id,
    result_topic,
)

__all__ = ["cancel", "result", "send", "status", "submit", "worker"]

F = TypeVar("F", bound=Callable[..., Any])


class RunEndedError(AgentframeError):
    """The run has ended: there is nothing to cancel, and nothing waits for a message."""


def _default_url() -> str:
    return f"sqlite:///{data_dir() / 'dbos.sqlite'}"


def _url_option(command: F) -> F:
    return click.option(
        "--system-database-url",
        "url",
        envvar="AGENTFRAME_DBOS_URL",
        default=_default_url,
        show_default="sqlite under $XDG_DATA_HOME/agentframe",
        help="DBOS system database: sqlite:///FILE, or postgresql://... to share workers.",
    )(command)


def _queue_option(command: F) -> F:
    return click.option("--queue", "-q", default="agentframe", show_default=True)(command)


@contextmanager
def _client(url: str) -> Iterator[Any]:
    """A DBOS client that fails at once (no retrying an unreachable database) and says why
    in one line."""
    from dbos import DBOSClient, error

    quiet_dbos()
    if url.startswith("sqlite:///"):
        os.makedirs(os.path.dirname(url[len("sqlite:///") :]) or ".", exist_ok=True)
    try:
        client = DBOSClient(system_database_url=url, retry_connection_errors=False)
    except Exception as err:
        raise database_error(url, err) from None
    try:
        yield client
    except (click.ClickException, AgentframeError):
        raise
    except error.DBOSException as err:  # an unknown workflow id, say: the message, not a traceback
        raise click.ClickException(str(err)) from None
    except Exception as err:  # the database's own errors: say what, not a traceback
        raise database_error(url, err) from None
    finally:
        client.destroy()


#: Where a run is once it has ended: nothing waits in it any more.
_ENDED = {"SUCCESS", "ERROR", "CANCELLED", "MAX_RECOVERY_ATTEMPTS_EXCEEDED"}


def _ended(client: Any, workflow_id: str) -> str | None:
    """The run's final status when it has ended, else None (an unknown id is an error)."""
    found = client.retrieve_workflow(workflow_id).get_status()
    status = str(found.status).rsplit(".", 1)[-1]
    return status if status in _ENDED else None


@click.command()
@click.option("--session", "-s", "session_id", required=True, help="The session to run in.")
@_queue_option
@_url_option
@click.argument("prompt")
@pass_app
def submit(app: App, session_id: str, queue: str, url: str, prompt: str) -> None:
    """Queue a durable run of PROMPT; print its workflow id."""
    with handle_errors():
        app.config()  # a config that does not load is an error here, not in a worker later
    with handle_errors(), _client(url) as client:
        path = app.config_path()
        handle = client.enqueue(
            {
                "queue_name": queue,
                "workflow_name": WORKFLOW_NAME,
                "queue_partition_key": session_id,
            },
            str(path.resolve()) if path else None,
            app.profile,
            session_id,
            prompt,
        )
        click.echo(handle.get_workflow_id())


@click.command()
@_queue_option
@click.option(
    "--worker-concurrency",
    type=click.IntRange(1, 1000),
    default=4,
    show_default=True,
    help="Runs of the queue at once in this worker.",
)
@click.option(
    "--concurrency",
    "global_concurrency",
    type=click.IntRange(1, 100000),
    help="Runs of the queue at once over all workers.",
)
@click.option(
    "--executor-id",
    help="This worker's id. Restarting a worker with the same id "
    "recovers the runs it had in flight (default: 'local').",
)
@click.option(
    "--recover-executor",
    "recover",
    multiple=True,
    metavar="ID",
    help="Also take over the pending runs of the worker with this id, which must be dead "
    "(repeatable).",
)
@click.option(
    "--wait-pending",
    type=click.FloatRange(0, 30 * 86400),
    default=86400.0,
    show_default=True,
    help="Seconds a run waits for a parked tool call's result (`agentframe send`); 0: park.",
)
@click.option(
    "--poll-interval",
    type=click.FloatRange(0.01, 60),
    default=1.0,
    show_default=True,
    help="Seconds between looks at the queue.",
)
@click.option(
    "--lease-seconds",
    type=click.FloatRange(1, 3600),
    default=30.0,
    show_default=True,
    help="The executor id's lease: a live worker renews it every third of this; a dead "
    "one's expires after it (at once on the same host).",
)
@_url_option
def worker(
    queue: str,
    worker_concurrency: int,
    global_concurrency: int | None,
    executor_id: str | None,
    recover: tuple[str, ...],
    wait_pending: float,
    poll_interval: float,
    lease_seconds: float,
    url: str,
) -> None:
    """Run queued runs until stopped (SIGTERM or Ctrl-C). Refuses to start while a live
    worker holds the same executor id."""
    with handle_errors():
        _work(
            queue,
            worker_concurrency,
            global_concurrency,
            executor_id,
            recover,
            url,
            wait_pending,
            poll_interval,
            lease_seconds,
        )


def _work(
    queue: str,
    worker_concurrency: int,
    global_concurrency: int | None,
    executor_id: str | None,
    recover: tuple[str, ...],
    url: str,
    wait_pending: float,
    poll_interval: float,
    lease_seconds: float,
) -> None:
    from dbos import DBOS

    from . import durable  # registers the workflow

    quiet_dbos()
    durable.PENDING_WAIT_SECONDS = wait_pending
    if url.startswith("sqlite:///"):
        os.makedirs(os.path.dirname(url[len("sqlite:///") :]) or ".", exist_ok=True)
    executor = executor_id or os.environ.get("DBOS__VMID") or "local"  # DBOS's own default
    lease = ExecutorLease(system_engine(url), executor, lease_seconds)
    fresh = _take_lease(lease, url)  # before launch: launching recovers the id's runs
    config: Any = {"name": "agentframe", "system_database_url": url, "log_level": "WARNING"}
    config["executor_id"] = executor
    DBOS(config=config)
    stop = threading.Event()
    lost: list[AgentframeError] = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    held = not fresh
    try:
        DBOS.launch()  # recovers this executor's runs left pending by a crash
        if fresh:  # DBOS just created the database: nothing was pending to recover
            lease.acquire()
            held = True

        def on_lost(err: LeaseLostError) -> None:  # runs may no longer be ours alone: stop
            lost.append(err)
            stop.set()

        lease.keep(on_lost)
        DBOS.register_queue(
            queue,
            worker_concurrency=worker_concurrency,
            global_concurrency=global_concurrency,
            partition_concurrency=1,  # partitions are sessions: one run per session at a time
            polling_interval_sec=poll_interval,
        )
        if recover:
            _take_over(list(recover), queue)
        click.echo(f"worker {DBOS.executor_id} on queue {queue!r}", err=True)
        stop.wait()
    finally:
        DBOS.destroy()
        if held and not lost:
            with contextlib.suppress(Exception):  # an expired lease frees the id anyway
                lease.release()
    if lost:
        raise lost[0]


def _take_lease(lease: ExecutorLease, url: str) -> bool:
    """Take the executor id's lease; True when the system database does not exist yet (DBOS
    creates it on launch, and the lease is taken then)."""
    try:
        lease.acquire()
    except AgentframeError:
        raise
    except Exception as err:
        if url.startswith("postgresql") and missing(err):
            return True
        raise database_error(url, err) from None
    return False


def _take_over(executors: list[str], queue: str) -> None:
    """Put the dead workers' pending runs back on the queue; DBOS resumes each from its last
    completed step on whichever worker dequeues it."""
    from dbos import DBOS

    pending = DBOS.list_workflows(
        status="PENDING", executor_id=executors, load_input=False, load_output=False
    )
    for found in pending:  # a question waits on no queue of ours: DBOS's internal one
        on = None if found.name == QUESTION_WORKFLOW else queue
        DBOS.resume_workflow(found.workflow_id, queue_name=on)
    click.echo(f"took over {len(pending)} run(s) of {', '.join(executors)}", err=True)


@click.command()
@click.argument("workflow_id")
@_url_option
def status(workflow_id: str, url: str) -> None:
    """A run's state and the steps it has completed."""
    with handle_errors(), _client(url) as client:
        found = client.retrieve_workflow(workflow_id).get_status()
        steps = client.list_workflow_steps(workflow_id)
        emit_json(
            {
                "workflow_id": workflow_id,
                "status": str(found.status),
                "queue": found.queue_name,
                "executor": found.executor_id,
                "steps": [step.get("function_name") for step in steps],
                "waiting_for": client.get_event(workflow_id, WAITING_EVENT, timeout_seconds=0),
                "questions": [
                    _question_json(workflow_id, q) for q in _questions(client, workflow_id)
                ],
            }
        )


def _questions(client: Any, workflow_id: str) -> list[Any]:
    """The run's questions that wait for an answer."""
    found: list[Any] = client.list_workflows(
        workflow_id_prefix=question_workflow_id(workflow_id, QUESTION_PREFIX),
        name=QUESTION_WORKFLOW,
        status=["PENDING", "ENQUEUED"],
    )
    return found


def _asked(found: Any) -> dict[str, Any]:
    """What a question workflow asks (its first argument)."""
    asked: dict[str, Any] = found.input["args"][0]
    return asked


def _question_json(workflow_id: str, found: Any) -> dict[str, Any]:
    question_id = found.workflow_id.rsplit("/", 1)[-1]
    asked = _asked(found)
    answer = "accept|decline|cancel" if asked.get("schema") is None else "'{\"FIELD\": ...}'"
    return {
        "id": question_id,
        "source": asked.get("source", ""),
        "message": asked["message"],
        "schema": asked.get("schema"),
        "answer_with": f"agentframe send {workflow_id} {question_id} {answer}",
    }


@click.command()
@click.argument("workflow_id")
@click.option("--json", "as_json", is_flag=True, help="The whole result as JSON.")
@_url_option
def result(workflow_id: str, as_json: bool, url: str) -> None:
    """Wait for a run's answer and print it."""
    with handle_errors(), _client(url) as client:
        outcome = client.retrieve_workflow(workflow_id).get_result()
        if as_json:
            emit_json(outcome)
        else:
            click.echo(outcome["reply"] if isinstance(outcome, dict) else outcome)


class NoSuchQuestionError(AgentframeError):
    """The run asks no such question, or it has been answered."""


#: Characters of an answer or a result `send` takes.
MAX_SENT = 64 * 1024


@click.command()
@click.argument("workflow_id")
@click.argument("call_id")
@click.argument("text")
@_url_option
def send(workflow_id: str, call_id: str, text: str, url: str) -> None:
    """Deliver TEXT as the result of the parked tool call CALL_ID a run waits for, or answer
    the run's question CALL_ID (`q-...`, listed by `status`): accept, decline, cancel, or a
    JSON object of the question's fields (an accept; fields left out take their defaults)."""
    with handle_errors(), _client(url) as client:
        if len(text) > MAX_SENT:
            raise click.BadParameter(f"over {MAX_SENT} characters", param_hint="TEXT")
        ended = _ended(client, workflow_id)  # an unknown id is an error
        if ended:
            raise RunEndedError(
                f"run {workflow_id} has ended ({ended}): nothing waits for {call_id}; not sent"
            )
        if call_id.startswith(QUESTION_PREFIX):
            _answer(client, workflow_id, call_id, text)
            return
        client.send(workflow_id, text, topic=result_topic(call_id))
        click.echo(f"sent the result of {call_id} to {workflow_id}")


def _answer(client: Any, workflow_id: str, question_id: str, text: str) -> None:
    """Send the answer TEXT to a question that waits, once it fits the question."""
    from .questions import question_of

    asking = question_workflow_id(workflow_id, question_id)
    waiting = [q for q in _questions(client, workflow_id) if q.workflow_id == asking]
    if not waiting:
        raise NoSuchQuestionError(
            f"run {workflow_id} has no question {question_id} waiting (see agentframe status)"
        )
    answer = _answer_of(question_of(_asked(waiting[0])), text)
    # One answer a question: a second send is the same message, not another one.
    client.send(asking, answer, topic=ANSWER_TOPIC, idempotency_key=f"{asking}:answer")
    click.echo(f"answered {question_id} of {workflow_id}: {answer['action']}")


def _answer_of(question: Question, text: str) -> dict[str, Any]:
    """TEXT as an answer to `question`, or a usage error naming what does not fit."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # bytes that are not UTF-8 in argv: no server could take them
        raise click.BadParameter("not UTF-8 text", param_hint="TEXT") from None
    word = text.strip()
    if word in ("decline", "cancel"):
        return {"action": word}
    if word == "accept":
        content: Any = {}
    else:
        try:
            content = json.loads(text)
        except (ValueError, RecursionError):
            content = None
        if not isinstance(content, dict):
            raise click.BadParameter(
                "accept, decline, cancel, or a JSON object of the question's fields",
                param_hint="TEXT",
            )
    if question.confirmation:
        if content:
            raise click.BadParameter("the question asks yes or no: accept", param_hint="TEXT")
        return {"action": "accept"}
    filled = {f.name: f.default for f in question.fields if f.default is not None} | content
    problem = question.content_problem(filled)
    if problem is not None:
        name, why = problem
        raise click.BadParameter(f"field {name!r}: {why}", param_hint="TEXT")
    return {"action": "accept", "content": filled}


@click.command()
@click.argument("workflow_id")
@_url_option
def cancel(workflow_id: str, url: str) -> None:
    """Cancel a queued or running run and its questions (its completed steps stay
    recorded)."""
    with handle_errors(), _client(url) as client:
        ended = _ended(client, workflow_id)  # an unknown id is an error, not a no-op
        if ended:
            raise RunEndedError(f"run {workflow_id} has already ended ({ended}): not cancelled")
        client.cancel_workflow(workflow_id)
        for question in _questions(client, workflow_id):  # nobody waits for their answers now
            client.cancel_workflow(question.workflow_id)
        click.echo(f"cancelled {workflow_id}")
