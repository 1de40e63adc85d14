"""Hostile tool lists, through the CLI: a schema that points outside itself, too many tools,
huge or deep schemas, names that collide, schemas without a type. A bad tool is left out
with a warning naming it; a server that lists too many is left out; the others work."""

from __future__ import annotations

import json
import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from agentframe_core.testing import run_cli

HOSTILE = str(Path(__file__).parent / "servers" / "hostile.py")
SECRET = "sk-LOCAL-SECRET-123"


def tool(name: str, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "name": name,
        "description": f"the {name} tool",
        "inputSchema": schema or {"type": "object"},
    }


def listing(tmp_path: Path, name: str, tools: list[dict[str, Any]]) -> dict[str, Any]:
    """A hostile.py server (`listing` mode) whose tools/list answers `tools`."""
    path = tmp_path / f"{name}.tools.json"
    path.write_text(json.dumps(tools))
    return {"command": sys.executable, "args": [HOSTILE, "listing", str(path)]}


def project(
    tmp_path: Path,
    servers: dict[str, Any],
    replies: list[Any] | None = None,
    **options: Any,
) -> Path:
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
    config = {
        "adapter": {"use": "scripted", "replies": replies or ["ok"]},
        "store": {"use": "memory"},
        "tools": [{"use": "mcp", "startup_timeout": 20, **options}],
    }
    (tmp_path / "agentframe.yaml").write_text(yaml.safe_dump(config))
    return tmp_path


@pytest.fixture
def listener() -> Iterator[tuple[int, list[bytes]]]:
    """A TCP port that records every connection's first bytes and never answers: a fetch
    of a `$ref` there would hang the run."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.settimeout(0.2)
    seen: list[bytes] = []
    stop = threading.Event()

    def accept() -> None:
        held = []
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            conn.settimeout(1)
            try:
                seen.append(conn.recv(1024))
            except OSError:
                seen.append(b"")
            held.append(conn)
        for conn in held:
            conn.close()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1], seen
    stop.set()
    thread.join(5)
    server.close()


def test_a_ref_outside_the_schema_is_never_fetched_and_its_tool_left_out(
    tmp_path: Path, listener: tuple[int, list[bytes]]
) -> None:
    port, seen = listener
    secret = tmp_path / "secret.json"
    secret.write_text(json.dumps({"const": SECRET}))
    tools = [
        tool(
            "remote",
            {"type": "object", "properties": {"x": {"$ref": f"http://127.0.0.1:{port}/s"}}},
        ),
        tool("local", {"type": "object", "properties": {"x": {"$ref": secret.as_uri()}}}),
        tool("zero", {"$ref": "file:///dev/zero", "type": "object"}),
        tool(
            "fine",
            {
                "type": "object",
                "properties": {"x": {"$ref": "#/$defs/x"}},
                "$defs": {"x": {"type": "integer"}},
            },
        ),
    ]
    calls = [
        {"name": f"mcp_h_{n}", "arguments": {"x": 1}} for n in ("remote", "local", "zero", "fine")
    ]
    cwd = project(
        tmp_path,
        {"h": listing(tmp_path, "h", tools)},
        [{"tool_calls": calls}, "done"],
        call_timeout=20,
    )
    started = time.monotonic()
    done = run_cli(cwd, "run", "go", "--json", timeout=60)
    took = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    assert took < 20, took  # within call_timeout, start-up included (the old code hung)
    assert seen == [], seen  # nothing was fetched
    assert SECRET not in done.stdout + done.stderr
    for name in ("remote", "local", "zero"):
        assert f"MCP tool h/{name} left out" in done.stderr, done.stderr
    assert "only local '#...' refs" in done.stderr
    results = {r["name"]: r for r in json.loads(done.stdout)["tool_calls"]}
    assert results["mcp_h_fine"]["is_error"] is False
    assert all(results[f"mcp_h_{n}"]["is_error"] for n in ("remote", "local", "zero"))


def test_huge_or_deep_schemas_leave_only_their_tool_out(tmp_path: Path) -> None:
    deep: dict[str, Any] = {"type": "string"}
    for _ in range(40):
        deep = {"type": "object", "properties": {"x": deep}}
    tools = [
        tool("huge", {"type": "object", "enum": ["v" * 100] * 5000}),
        tool("deep", deep),
        tool("fine"),
    ]
    cwd = project(tmp_path, {"h": listing(tmp_path, "h", tools)})
    done = run_cli(cwd, "mcp", "list", "--json")
    assert done.returncode == 0, done.stderr
    (row,) = json.loads(done.stdout)["servers"]
    assert [t["name"] for t in row["tools"]] == ["mcp_h_fine"]
    assert "MCP tool h/huge left out: its input schema is larger than 64 KiB" in done.stderr
    assert (
        "MCP tool h/deep left out: its input schema is nested deeper than 32 levels" in done.stderr
    )


def test_too_many_tools_leave_that_server_out_and_the_others_work(tmp_path: Path) -> None:
    many = [tool(f"t{i}") for i in range(1001)]
    servers = {"many": listing(tmp_path, "many", many), "few": listing(tmp_path, "few", many[:2])}
    cwd = project(tmp_path, servers)
    done = run_cli(cwd, "mcp", "list", "--json")
    assert done.returncode == 1, done.stderr
    rows = {r["server"]: r for r in json.loads(done.stdout)["servers"]}
    assert rows["many"]["state"] == "failed" and rows["many"]["tools"] == []
    assert "MCP server 'many' lists more than 1000 tools (max_tools)" in rows["many"]["error"]
    assert [t["name"] for t in rows["few"]["tools"]] == ["mcp_few_t0", "mcp_few_t1"]
    raised = project(tmp_path, servers, max_tools=2000)
    assert run_cli(raised, "mcp", "list").returncode == 0


def test_schema_checks_count_against_the_listing_timeout(tmp_path: Path) -> None:
    heavy = {
        "type": "object",
        "properties": {
            f"p{i}": {"type": "object", "properties": {"a": {"type": "string"}}} for i in range(100)
        },
    }
    tools = [tool(f"t{i}", heavy) for i in range(200)]  # 1.4 MB; checking takes ~60 ms each
    cwd = project(tmp_path, {"slow": listing(tmp_path, "slow", tools)}, list_timeout=2)
    started = time.monotonic()
    done = run_cli(cwd, "mcp", "list", "--json")
    took = time.monotonic() - started
    (row,) = json.loads(done.stdout)["servers"]
    assert row["state"] == "failed"
    assert (
        "did not finish tools/list (the listing and its schema checks) within 2 s" in row["error"]
    )
    assert took < 15, took


def test_a_name_collision_leaves_both_tools_out_and_the_rest_works(tmp_path: Path) -> None:
    servers = {
        "h": listing(tmp_path, "h", [tool("a.b"), tool("a_b"), tool("c")]),
        "other": listing(tmp_path, "other", [tool("d")]),
    }
    cwd = project(tmp_path, servers)
    done = run_cli(cwd, "mcp", "list", "--json")
    assert done.returncode == 0, done.stderr
    rows = {
        r["server"]: [t["name"] for t in r["tools"]] for r in json.loads(done.stdout)["servers"]
    }
    assert rows == {"h": ["mcp_h_c"], "other": ["mcp_other_d"]}
    assert "h/a.b and h/a_b are both exposed as 'mcp_h_a_b'" in done.stderr
    denied = project(tmp_path, servers, deny_tools=["mcp_h_a_b"])
    quiet = run_cli(denied, "mcp", "list")
    assert quiet.returncode == 0 and "exposed as" not in quiet.stderr, quiet.stderr


def test_a_tool_without_a_type_is_left_out_not_its_server(tmp_path: Path) -> None:
    tools = [tool("typeless", {"properties": {"x": {"type": "string"}}}), tool("fine")]
    cwd = project(tmp_path, {"h": listing(tmp_path, "h", tools)})
    done = run_cli(cwd, "mcp", "list", "--json")
    assert done.returncode == 0, done.stderr
    (row,) = json.loads(done.stdout)["servers"]
    assert [t["name"] for t in row["tools"]] == ["mcp_h_fine"]
    assert "MCP tool h/typeless left out" in done.stderr
