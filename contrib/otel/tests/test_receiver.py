"""One `agentframe run` with a tool call, a sub-agent and an MCP call (to `agentframe mcp
serve`, a real stdio child), exported over OTLP/HTTP to a real receiver (Arize Phoenix) and
kept in the local trace store: one trace, nested as the work nests, the server's spans in
the caller's trace, and `agentframe trace show` printing its tree."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from agentframe_otel import read_traces

from agentframe_core.testing import run_cli

HELPER = "---\nname: helper\ndescription: Answers briefly.\ntools: add\n---\nOne word.\n"
ECHO = "---\nname: echo\ndescription: Echoes a task.\n---\nRepeat the task.\n"


def _project(root: Path, url: str) -> Path:
    data = root / "data"  # run_cli's data folder: both processes share one trace store
    server = root / "server"
    (server / ".claude" / "agents").mkdir(parents=True)
    (server / ".claude" / "agents" / "echo.md").write_text(ECHO)
    served = {
        "adapter": {"use": "scripted", "cycle": True, "replies": ["pong"]},
        "store": {"use": "memory"},
        "telemetry": {"endpoint": url},
    }
    (server / "agentframe.yaml").write_text(yaml.safe_dump(served))
    (root / ".claude" / "agents").mkdir(parents=True)
    (root / ".claude" / "agents" / "helper.md").write_text(HELPER)
    usage = {"prompt_tokens": 20, "completion_tokens": 4, "cached_tokens": 15}
    replies: list[Any] = [
        {"tool_calls": [{"name": "add", "arguments": {"a": 2, "b": 3}}], "usage": usage},
        {"tool_calls": [{"name": "subagent", "arguments": {"agent": "helper", "task": "hi"}}]},
        {"content": "child answer", "usage": usage},  # the sub-agent's model call
        {"tool_calls": [{"name": "mcp_srv_echo", "arguments": {"task": "ping"}}]},
        {"content": "all done", "usage": usage},
    ]
    config = {
        "adapter": {"use": "scripted", "replies": replies},
        "store": {"use": "sqlite", "path": str(root / "sessions.db")},
        "tools": [
            {"use": "functions", "import": ["agentframe_core.examples:add"]},
            {"use": "subagents"},
            {
                "use": "mcp",
                "project": False,
                "startup_timeout": 120,
                "servers": {
                    "srv": {
                        "command": sys.executable,
                        "args": ["-m", "agentframe_core", "mcp", "serve", "--agent", "echo"],
                        "cwd": str(server),
                        "env": {
                            "XDG_DATA_HOME": str(data),
                            "AGENTFRAME_CACHE_DIR": str(root / "cache"),
                            "OTEL_METRICS_EXPORTER": "none",
                        },
                    }
                },
            },
        ],
        "telemetry": {"endpoint": url},
    }
    (root / "agentframe.yaml").write_text(yaml.safe_dump(config))
    return root


def test_one_trace_across_a_sub_agent_and_an_mcp_server(
    receiver: str,
    spans_received: Callable[[str, set[str], int], list[dict[str, Any]]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OTEL_METRICS_EXPORTER", "none")  # Phoenix takes traces only
    cwd = _project(tmp_path, receiver)
    done = run_cli(cwd, "run", "--json", "go", timeout=300)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["reply"] == "all done"

    # the local store (read as `trace show --json` reads it): this run's one trace, with the
    # MCP server's spans in it
    monkeypatch.setenv("XDG_DATA_HOME", str(cwd / "data"))
    (one,) = read_traces(cwd / "agentframe.yaml", run_id=result["run_id"])["traces"]
    assert one["run_id"] == result["run_id"] and one["session_id"] == result["session_id"]
    spans = {s["span_id"]: s for s in one["spans"]}

    def parent(span: dict[str, Any]) -> dict[str, Any]:
        return spans[span["parent_id"]]

    (root,) = [s for s in spans.values() if s["parent_id"] is None]
    assert root["operation"] == "invoke_agent"
    runs = [s for s in spans.values() if s["operation"] == "invoke_agent"]
    assert len(runs) == 3  # the parent, the sub-agent, the agent `mcp serve` ran
    tools = {
        s["attributes"]["gen_ai.tool.name"]: s
        for s in spans.values()
        if s["operation"] == "execute_tool"
    }
    assert set(tools) == {"add", "subagent", "mcp_srv_echo"}
    assert all(parent(t) is root for t in tools.values())
    child = next(s for s in runs if s.get("attributes", {}).get("gen_ai.agent.name") == "helper")
    assert parent(child) is tools["subagent"]  # the sub-agent runs under its tool call
    # the MCP SDK's client span carries the trace in `_meta`; its server span continues it
    client = next(s for s in spans.values() if s["name"] == "MCP send tools/call echo")
    assert client["operation"] == "mcp" and parent(client) is tools["mcp_srv_echo"]
    server_side = next(s for s in runs if s["attributes"].get("gen_ai.agent.name") == "echo")
    served = parent(server_side)
    assert served["name"] == "tools/call echo" and served["operation"] == "mcp"
    assert parent(served) is client
    chat = next(s for s in spans.values() if s["operation"] == "chat" and parent(s) is root)
    assert chat["attributes"]["gen_ai.usage.input_tokens"] == 20
    assert chat["attributes"]["gen_ai.usage.cache_read.input_tokens"] == 15

    # the receiver: the same spans, one trace id, the server's among them
    got = spans_received(receiver, {one["trace_id"]}, len(spans))
    assert {s["context"]["span_id"] for s in got} == set(spans)
    by_id = {s["context"]["span_id"]: s for s in got}
    assert by_id[server_side["span_id"]]["attributes"]["gen_ai.agent.name"] == "echo"
    assert by_id[tools["add"]["span_id"]]["attributes"]["gen_ai.tool.call.id"]
    assert by_id[root["span_id"]]["attributes"]["agentframe.run.id"] == result["run_id"]

    tree = run_cli(cwd, "trace", "show", result["session_id"])
    assert tree.returncode == 0, tree.stderr
    assert "execute_tool subagent" in tree.stdout and "invoke_agent echo" in tree.stdout
    assert "20 in / 4 out" in tree.stdout and "75% cached" in tree.stdout
