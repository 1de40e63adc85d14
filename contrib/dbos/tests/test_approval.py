"""Human in the loop: a run parks a tool call and waits for its result as a DBOS message. Its
worker is killed while it waits; restarted, the worker waits again; `agentframe send` delivers
the result, and the run answers with it."""

from __future__ import annotations

import json
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agentframe_adapter_openai.testing import Action, ScriptedServer

from agentframe_core.testing import eventually

HERE = Path(__file__).parent


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as running:
        call = {"name": "request_approval", "arguments": {"item": "the refund"}}
        running.push(Action.reply(tool_calls=[call]), Action.reply("The refund is approved."))
        yield running


def test_a_parked_call_waits_across_a_worker_crash_for_its_sent_result(
    tmp_path: Path, server: ScriptedServer, agentframe: Any
) -> None:
    agentframe.cfg.write_text(
        f"adapter: {{use: openai, base_url: '{server.url}', model: scripted-model}}\n"
        f"store: {{use: sqlite, path: {tmp_path / 'sessions.db'}}}\n"
        "tools: [{use: functions, import: ['approvals:request_approval']}]\n"
    )
    agentframe.env["PYTHONPATH"] = str(HERE)
    worker = agentframe.start_worker()
    try:
        workflow_id = agentframe("submit", "-s", "S", "Approve the refund.").stdout.strip()
        waiting = eventually(
            lambda: json.loads(agentframe("status", workflow_id).stdout)["waiting_for"],
            60,
            what="the run to park its call",
        )
        assert waiting["tool"] == "request_approval"
    finally:
        worker.send_signal(signal.SIGKILL)
        worker.wait(30)
    with agentframe.worker():  # recovers the run, which waits again
        sent = agentframe("send", workflow_id, waiting["call_id"], "Approved by Ada.")
        assert sent.returncode == 0, sent.stderr
        done = agentframe("result", workflow_id)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "The refund is approved."
    assert len(server.requests) == 2  # the model was not asked again after the crash
    tool_messages = [m for m in server.requests[1]["body"]["messages"] if m["role"] == "tool"]
    assert [m["content"] for m in tool_messages] == ["Approved by Ada."]
