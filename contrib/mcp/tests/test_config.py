"""The mcp.json format, its sources, `${VAR}` expansion, hostile files, and tool names."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from agentframe_mcp import McpConfigError, McpOptions, McpToolset
from agentframe_mcp.names import exposed_name
from agentframe_mcp.options import HttpServer, StdioServer
from agentframe_mcp.servers import load_servers

from agentframe_core import RunContext, ToolCall

Make = Callable[..., McpToolset]


def write(path: Path, servers: dict[str, Any]) -> Path:
    path.write_text(json.dumps({"mcpServers": servers}))
    return path


def test_servers_come_from_the_project_file_a_config_file_and_inline(tmp_path: Path) -> None:
    project = tmp_path / "repo"
    (project / "src" / "deep").mkdir(parents=True)
    (project / ".git").mkdir()
    write(project / ".mcp.json", {"a": {"command": "a-proj"}, "b": {"command": "b-proj"}})
    other = write(tmp_path / "other.json", {"b": {"command": "b-file"}, "c": {"command": "c"}})
    options = McpOptions(
        config=other,
        servers={"c": {"type": "http", "url": "https://example.test/mcp"}},
    )
    found = load_servers(options, project / "src" / "deep")
    assert isinstance(found["a"], StdioServer) and found["a"].command == "a-proj"
    assert isinstance(found["b"], StdioServer) and found["b"].command == "b-file"
    assert isinstance(found["c"], HttpServer) and found["c"].url == "https://example.test/mcp"
    assert set(load_servers(McpOptions(project=False), project)) == set()


def test_claude_style_entries_without_type_and_with_extra_keys_are_read(tmp_path: Path) -> None:
    path = write(
        tmp_path / "m.json",
        {
            "s": {"command": "x", "args": ["-y"], "disabled": False, "autoApprove": []},
            "h": {"url": "http://127.0.0.1:1/mcp", "headers": {"A": "b"}},
            "e": {"type": "sse", "url": "http://127.0.0.1:1/sse"},
        },
    )
    found = load_servers(McpOptions(project=False, config=path), tmp_path)
    assert [type(s).__name__ for s in found.values()] == ["StdioServer", "HttpServer", "HttpServer"]
    assert found["h"].type == "http" and found["e"].type == "sse"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{\n  "mcpServers": {\n    oops\n}', r"m\.json:3: not JSON"),
        ('{"servers": {}}', r'expected an object \{"mcpServers"'),
        ('{"mcpServers": {"x": {"type": "http"}}}', r"server 'x': .*url"),
        ('{"mcpServers": {"x": {"type": "http", "url": "file:///etc/passwd"}}}', r"server 'x'"),
        ('{"mcpServers": {"x": {"command": ""}}}', r"server 'x': command"),
        ('{"mcpServers": {"x": {"command": "a", "protocol": "2027"}}}', r"server 'x': protocol"),
    ],
)
def test_a_broken_file_is_an_error_naming_the_file_and_the_field(
    tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "m.json"
    path.write_text(content)
    with pytest.raises(McpConfigError, match=message) as caught:
        load_servers(McpOptions(project=False, config=path), tmp_path)
    assert str(path) in str(caught.value)


def test_a_huge_file_or_a_folder_or_a_fifo_is_refused(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    big.write_text('{"mcpServers": {}, "pad": "' + "x" * (1024 * 1024) + '"}')
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    for path, message in (
        (big, "at most 1 MiB"),
        (tmp_path, "not a regular file"),
        (fifo, "not a regular file"),
    ):
        with pytest.raises(McpConfigError, match=message):
            load_servers(McpOptions(project=False, config=path), tmp_path)


def test_inline_servers_are_checked_when_the_config_is(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="server 'bad'"):
        McpOptions(servers={"bad": {"command": 3}})
    with pytest.raises(ValueError, match="close_timeout"):
        McpOptions(close_timeout=5)


async def test_env_is_expanded_and_an_unset_variable_is_an_error(
    make_toolset: Make,
    hostile: Callable[[str], dict[str, Any]],
    ctx: RunContext,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MCP_TEST_TOKEN", "s3cret-value")
    server = hostile("normal") | {
        "env": {"TOKEN": "Bearer ${MCP_TEST_TOKEN}", "MODE": "${MCP_TEST_UNSET:-fallback}"}
    }
    toolset = make_toolset({"h": server})
    await toolset.tools(ctx)
    token = await toolset.dispatch(ToolCall("1", "mcp_h_env", {"name": "TOKEN"}), ctx)
    mode = await toolset.dispatch(ToolCall("2", "mcp_h_env", {"name": "MODE"}), ctx)
    assert (token.content, mode.content) == ("Bearer s3cret-value", "fallback")
    assert "s3cret-value" not in json.dumps(toolset.status())
    broken = make_toolset({"b": hostile("normal") | {"env": {"T": "${MCP_TEST_UNSET}"}}})
    assert await broken.tools(ctx) == []
    assert broken.connections["b"].error is not None
    assert "mcpServers.b.env.T: ${MCP_TEST_UNSET} is not set" in broken.connections["b"].error


@pytest.mark.parametrize(
    ("server", "tool", "name"),
    [
        ("time", "get_current_time", "mcp_time_get_current_time"),
        ("my.server", "do it/now", "mcp_my_server_do_it_now"),
        ("ünï", "tool-1", "mcp__n__tool-1"),
        ("s" * 40, "t" * 40, ("mcp_" + "s" * 40 + "_" + "t" * 40)[:64]),
    ],
)
def test_names_are_sanitised_and_cut_to_64(server: str, tool: str, name: str) -> None:
    assert exposed_name(server, tool) == name
    assert len(name) <= 64


async def test_a_name_collision_leaves_both_tools_out_with_a_warning_naming_both(
    make_toolset: Make,
    hostile: Callable[[str], dict[str, Any]],
    ctx: RunContext,
    caplog: pytest.LogCaptureFixture,
) -> None:
    # mcp_a_b + _sleep and mcp_a + _b_sleep: "a.b"/sleep and "a_b"/sleep both map to mcp_a_b_sleep
    toolset = make_toolset({"a.b": hostile("normal"), "a_b": hostile("normal")})
    names = {t.name for t in await toolset.tools(ctx)}
    assert "mcp_a_b_sleep" not in names and "mcp_a_b_crash" not in names
    message = "\n".join(r.getMessage() for r in caplog.records)
    assert "a.b/sleep and a_b/sleep are both exposed as 'mcp_a_b_sleep'" in message
