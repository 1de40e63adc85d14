"""A durable run's trace: its DBOS workflow holds the run, each model and tool call holds
its checkpointed step (a real worker on SQLite, spans kept by agentframe-otel's store)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def test_the_workflow_and_its_steps_are_spans_around_the_run(
    tmp_path: Path, agentframe: Any
) -> None:
    agentframe.cfg.write_text(
        "adapter:\n  use: scripted\n  replies:\n"
        "    - tool_calls: [{name: add, arguments: {a: 2, b: 3}}]\n"
        "    - The sum is 5.\n"
        f"store: {{use: sqlite, path: {tmp_path / 'sessions.db'}}}\n"
        "tools: [{use: functions, import: ['agentframe_core.examples:add']}]\n"
        "telemetry: {}\n"
    )
    agentframe.env["XDG_DATA_HOME"] = str(tmp_path / "data")
    with agentframe.worker():  # stopped before `trace show`: a stopping worker flushes its spans
        workflow_id = agentframe("submit", "-s", "S", "add").stdout.strip()
        assert agentframe("result", workflow_id).stdout.strip() == "The sum is 5."
    shown = agentframe("trace", "show", "S", "--json")
    assert shown.returncode == 0, shown.stderr
    (trace,) = json.loads(shown.stdout)["traces"]
    spans = {s["span_id"]: s for s in trace["spans"]}
    by_name = {s["name"]: s for s in spans.values()}
    root = by_name["workflow agentframe_run"]
    assert root["parent_id"] is None and root["operation"] == "dbos"
    assert root["attributes"]["dbos.workflow.id"] == workflow_id
    run = by_name["invoke_agent"]
    assert run["parent_id"] == root["span_id"]
    assert trace["run_id"] == run["attributes"]["agentframe.run.id"] != ""
    assert run["attributes"]["agentframe.session.id"] == "S"
    for step in ("load_history", "commit"):
        assert by_name[f"step {step}"]["parent_id"] == root["span_id"]
    model_steps = [s for s in spans.values() if s["name"] == "step model_call"]
    assert len(model_steps) == 2
    assert all(spans[s["parent_id"]]["operation"] == "chat" for s in model_steps)
    tool_step = by_name["step tool:add"]
    assert spans[tool_step["parent_id"]]["name"] == "execute_tool add"
