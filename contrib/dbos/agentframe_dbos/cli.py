"""`agentframe submit|worker|status|result|cancel`: durable runs on DBOS queues.

Every command names the DBOS system database with `--system-database-url` (or
AGENTFRAME_DBOS_URL): SQLite by default (one machine), PostgreSQL to spread workers over
machines. Workers create the system database; submit after one worker has started once.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import click

from agentframe_core import data_dir
from agentframe_core.cli import App, emit_json, handle_errors, pass_app

from .names import WAITING_EVENT, WORKFLOW_NAME, result_topic

__all__ = ["cancel", "result", "send", "status", "submit", "worker"]

F = TypeVar("F", bound=Callable[..., Any])


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
    from dbos import DBOSClient, error

    if url.startswith("sqlite:///"):
        os.makedirs(os.path.dirname(url[len("sqlite:///") :]) or ".", exist_ok=True)
    client = DBOSClient(system_database_url=url)
    try:
        yield client
    except error.DBOSException as err:  # an unknown workflow id, say: the message, not a traceback
        raise click.ClickException(str(err)) from None
    except Exception as err:  # the database's own errors: say what, not a traceback
        if "no such table" in str(err) or "does not exist" in str(err):
            raise click.ClickException(
                "no DBOS system database there yet: start `agentframe worker` once first"
            ) from None
        raise
    finally:
        client.destroy()


@click.command()
@click.option("--session", "-s", "session_id", required=True, help="The session to run in.")
@_queue_option
@_url_option
@click.argument("prompt")
@pass_app
def submit(app: App, session_id: str, queue: str, url: str, prompt: str) -> None:
    """Queue a durable run of PROMPT; print its workflow id."""
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
@_url_option
def worker(
    queue: str,
    worker_concurrency: int,
    global_concurrency: int | None,
    executor_id: str | None,
    recover: tuple[str, ...],
    wait_pending: float,
    poll_interval: float,
    url: str,
) -> None:
    """Run queued runs until stopped (SIGTERM or Ctrl-C)."""
    from dbos import DBOS

    from . import durable  # registers the workflow

    durable.PENDING_WAIT_SECONDS = wait_pending
    if url.startswith("sqlite:///"):
        os.makedirs(os.path.dirname(url[len("sqlite:///") :]) or ".", exist_ok=True)
    config: Any = {"name": "agentframe", "system_database_url": url, "log_level": "WARNING"}
    if executor_id:
        config["executor_id"] = executor_id
    DBOS(config=config)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    try:
        DBOS.launch()  # recovers this executor's runs left pending by a crash
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


def _take_over(executors: list[str], queue: str) -> None:
    """Put the dead workers' pending runs back on the queue; DBOS resumes each from its last
    completed step on whichever worker dequeues it."""
    from dbos import DBOS

    pending = DBOS.list_workflows(
        status="PENDING", executor_id=executors, load_input=False, load_output=False
    )
    for found in pending:
        DBOS.resume_workflow(found.workflow_id, queue_name=queue)
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
            }
        )


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


@click.command()
@click.argument("workflow_id")
@click.argument("call_id")
@click.argument("text")
@_url_option
def send(workflow_id: str, call_id: str, text: str, url: str) -> None:
    """Deliver TEXT as the result of the parked tool call CALL_ID a run waits for."""
    with handle_errors(), _client(url) as client:
        client.retrieve_workflow(workflow_id)  # an unknown id is an error
        client.send(workflow_id, text, topic=result_topic(call_id))
        click.echo(f"sent the result of {call_id} to {workflow_id}")


@click.command()
@click.argument("workflow_id")
@_url_option
def cancel(workflow_id: str, url: str) -> None:
    """Cancel a queued or running run (its completed steps stay recorded)."""
    with handle_errors(), _client(url) as client:
        client.retrieve_workflow(workflow_id)  # an unknown id is an error, not a no-op
        client.cancel_workflow(workflow_id)
        click.echo(f"cancelled {workflow_id}")
