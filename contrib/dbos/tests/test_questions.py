"""A durable run's questions: an MCP server asks for an approval in the middle of a tool call;
the run waits for the answer as a workflow of its own (`agentframe status` lists it), across a
worker's SIGKILL and a takeover by another worker; `agentframe send` checks the answer against
the question's form before it sends it, and the server gets it, defaults filled."""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agentframe_adapter_openai.testing import Action, ScriptedServer

from agentframe_core.testing import eventually

HERE = Path(__file__).parent
CALL = {"name": "mcp_elicit_refund", "arguments": {"item": "order 7"}}


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as running:
        running.push(Action.reply(tool_calls=[CALL]), Action.reply("Refunded."))
        yield running


def _configure(agentframe: Any, tmp_path: Path, model: ScriptedServer, store: str) -> Path:
    marker = tmp_path / "asked.txt"
    agentframe.cfg.write_text(
        f"adapter: {{use: openai, base_url: '{model.url}', model: scripted-model}}\n"
        f"store: {store}\n"
        "tools:\n"
        "  - use: mcp\n"
        "    servers:\n"
        f"      elicit: {{command: {sys.executable}, "
        f"args: [{HERE / 'elicit_server.py'}, {marker}]}}\n"
    )
    return marker


def _question(agentframe: Any, workflow_id: str, worker: Any) -> dict[str, Any]:
    """The one question the run waits on, once it asks it."""

    def asked() -> list[dict[str, Any]]:
        shown = agentframe("status", workflow_id)
        assert shown.returncode == 0, shown.stderr
        questions: list[dict[str, Any]] = json.loads(shown.stdout)["questions"]
        assert questions or worker.poll() is None, worker.stderr.read()[-3000:]
        return questions

    questions = eventually(asked, 90, what="the run to ask its question")
    assert len(questions) == 1, questions
    return dict(questions[0])


def _tool_reply(model: ScriptedServer) -> dict[str, Any]:
    """What the MCP tool returned, as the model read it in its second request."""
    messages = model.requests[1]["body"]["messages"]
    replies = [m["content"] for m in messages if m["role"] == "tool"]
    assert len(replies) == 1, replies
    return dict(json.loads(replies[0]))


def _ask_kill_answer(
    agentframe: Any, tmp_path: Path, model: ScriptedServer, store: str, *second: str
) -> None:
    """Ask; a wrong answer refused; SIGKILL; a worker with `second` options asks again under
    the same id; the right answer reaches the server, and the run ends."""
    marker = _configure(agentframe, tmp_path, model, store)
    first = agentframe.start_worker()
    try:
        workflow_id = agentframe("submit", "-s", "S", "Refund order 7.").stdout.strip()
        asked = _question(agentframe, workflow_id, first)
        assert asked["source"] == "mcp:elicit"
        assert "Refund order 7?" in asked["message"]
        assert asked["schema"]["required"] == ["approver"]
        assert asked["answer_with"].startswith(f"agentframe send {workflow_id} {asked['id']} ")
        wrong = agentframe("send", workflow_id, asked["id"], '{"approver": "Ada", "amount": "x"}')
        assert wrong.returncode == 2, wrong.stderr
        assert "field 'amount': must be an integer" in wrong.stderr
        missing = agentframe("send", workflow_id, asked["id"], "accept")  # no approver
        assert missing.returncode == 2 and "field 'approver': required" in missing.stderr
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait(30)
    with agentframe.worker(*second) as worker:  # the run asks again: the same question
        again = _question(agentframe, workflow_id, worker)
        assert again["id"] == asked["id"]
        sent = agentframe("send", workflow_id, asked["id"], '{"approver": "Ada"}')
        assert sent.returncode == 0, sent.stderr
        assert f"answered {asked['id']}" in sent.stdout
        done = agentframe("result", workflow_id)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "Refunded."
        late = agentframe("send", workflow_id, asked["id"], "decline")
        assert late.returncode == 1 and "has ended (SUCCESS)" in late.stderr
    assert marker.read_text().splitlines() == ["asked", "asked"]  # the cut call ran again
    assert len(model.requests) == 2  # the model was not asked again after the crash
    assert _tool_reply(model) == {"action": "accept", "content": {"amount": 10, "approver": "Ada"}}


def test_a_question_waits_across_a_worker_crash_for_its_answer(
    tmp_path: Path, server: ScriptedServer, agentframe: Any
) -> None:
    store = f"{{use: sqlite, path: {tmp_path / 'sessions.db'}}}"
    _ask_kill_answer(agentframe, tmp_path, server, store)


def test_a_question_moves_with_its_run_to_a_worker_that_takes_over(
    tmp_path: Path, server: ScriptedServer, agentframe: Any, postgres_dsn: str
) -> None:
    import psycopg

    database = f"dbos_q_{os.getpid()}_{time.monotonic_ns()}"
    with psycopg.connect(postgres_dsn, autocommit=True) as db:
        db.execute(f"CREATE DATABASE {database}".encode())
    agentframe.env["AGENTFRAME_DBOS_URL"] = postgres_dsn.replace("/postgres", f"/{database}")
    store = f"{{use: postgres, dsn: '{postgres_dsn}', schema: {database}}}"
    take_over = ("--executor-id", "second", "--recover-executor", "local")
    _ask_kill_answer(agentframe, tmp_path, server, store, *take_over)


def test_an_unanswered_question_is_declined_after_the_wait(
    tmp_path: Path, server: ScriptedServer, agentframe: Any
) -> None:
    _configure(agentframe, tmp_path, server, f"{{use: sqlite, path: {tmp_path / 's.db'}}}")
    with agentframe.worker("--wait-pending", "1"):
        workflow_id = agentframe("submit", "-s", "S", "Refund order 7.").stdout.strip()
        done = agentframe("result", workflow_id)
        assert done.returncode == 0, done.stderr
        assert json.loads(agentframe("status", workflow_id).stdout)["questions"] == []
    assert _tool_reply(server) == {"action": "decline", "content": None}


def test_cancelling_a_run_cancels_its_question(
    tmp_path: Path, server: ScriptedServer, agentframe: Any
) -> None:
    _configure(agentframe, tmp_path, server, f"{{use: sqlite, path: {tmp_path / 's.db'}}}")
    with agentframe.worker() as worker:
        workflow_id = agentframe("submit", "-s", "S", "Refund order 7.").stdout.strip()
        asked = _question(agentframe, workflow_id, worker)
        cancelled = agentframe("cancel", workflow_id)
        assert cancelled.returncode == 0, cancelled.stderr
        assert json.loads(agentframe("status", workflow_id).stdout)["questions"] == []
        sent = agentframe("send", workflow_id, asked["id"], "decline")
        assert sent.returncode == 1 and "has ended (CANCELLED)" in sent.stderr
