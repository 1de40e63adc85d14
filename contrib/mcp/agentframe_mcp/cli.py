"""`agentframe mcp list|call|serve`."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import click

from agentframe_core import ToolResult
from agentframe_core.cli import App, emit_json, handle_errors, pass_app, warn

from .connection import McpConnection, ServerUnavailableError, State
from .login import login, logout
from .names import exposed_name
from .parts import app_toolsets
from .toolset import McpToolset

MAX_ARGUMENTS = 1024 * 1024


@click.group()
def mcp() -> None:
    """MCP servers as tools (`use: mcp`), and agents served over MCP."""


@mcp.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for machines.")
@pass_app
def list_servers(app: App, as_json: bool) -> None:
    """Start each configured server; show its status and tools. Exit 1 if one fails."""
    with handle_errors():
        toolsets = app_toolsets(app)
        rows = asyncio.run(_list(toolsets))
    notes = [note for toolset in toolsets for note in toolset.notes]
    if as_json:
        emit_json({"servers": rows, "not_started": notes})
    else:
        _print_rows(rows, notes)
    if any(row["state"] != State.READY.value for row in rows):
        sys.exit(1)


async def _list(toolsets: list[McpToolset]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    try:
        for toolset in toolsets:
            described = {t.name: t for t in await toolset.offered()}
            for row in toolset.status():
                for tool in row["tools"]:
                    tool["description"] = described[tool["name"]].description
                rows.append(row)
    finally:
        await asyncio.gather(*(t.aclose() for t in toolsets))
    return rows


def _print_rows(rows: list[dict[str, Any]], notes: list[str]) -> None:
    for note in notes:
        warn(note)
    if not rows and not notes:
        warn("no MCP servers configured (a `use: mcp` part, or the project's .mcp.json)")
    for row in rows:
        where = row.get("url") or " ".join([row.get("command", ""), *row.get("args", [])])
        ok = row["state"] == State.READY.value
        mark = click.style("ok  ", fg="green") if ok else click.style("FAIL", fg="red")
        click.echo(f"{mark} {row['server']} ({row['type']}: {where})")
        if row["error"]:
            click.echo(f"     {row['error']}")
        for tool in row["tools"]:
            summary = (tool.get("description") or "").strip().splitlines()
            click.echo(f"     {tool['name']}" + (f" — {summary[0][:80]}" if summary else ""))


@mcp.command("call")
@click.argument("server")
@click.argument("tool")
@click.argument("arguments", default="{}")
@click.option("--json", "as_json", is_flag=True, help="Print the whole result as JSON.")
@pass_app
def call(app: App, server: str, tool: str, arguments: str, as_json: bool) -> None:
    """Call TOOL on SERVER with ARGUMENTS (a JSON object), for debugging. TOOL is the
    server's own name or the name `mcp list` shows (mcp_SERVER_TOOL); a tool the config's
    allow_tools/deny_tools leave out is refused, as a model is never offered it. Exit 1 if
    the result is an error."""
    if len(arguments) > MAX_ARGUMENTS:
        raise click.BadParameter("longer than 1 MiB", param_hint="ARGUMENTS")
    try:
        parsed = json.loads(arguments)
    except ValueError as err:
        raise click.BadParameter(f"not JSON: {err}", param_hint="ARGUMENTS") from None
    if not isinstance(parsed, dict):
        raise click.BadParameter("must be a JSON object", param_hint="ARGUMENTS")
    with handle_errors():
        toolsets = app_toolsets(app)
        toolset = next((t for t in toolsets if server in t.connections), None)
        if toolset is None:
            known = ", ".join(sorted(n for t in toolsets for n in t.connections)) or "none"
            click.secho(f"error: no MCP server {server!r}; configured: {known}", fg="red", err=True)
            sys.exit(2)
        result = asyncio.run(_call_one(toolset, toolset.connections[server], tool, parsed))
    if as_json:
        emit_json({"content": result.content, "is_error": result.is_error, "meta": result.meta})
    else:
        click.echo(result.content)
    if result.is_error:
        sys.exit(1)


async def _call_one(
    toolset: McpToolset, connection: McpConnection, tool: str, arguments: dict[str, Any]
) -> ToolResult:
    try:
        try:
            await connection.ensure()
        except ServerUnavailableError as err:
            return ToolResult(str(err), True)
        own = _server_name(connection, tool)
        if own is None:
            offered = ", ".join(t.name for t in connection.tools) or "none"
            return ToolResult(
                f"MCP server {connection.name!r} has no tool {tool!r}; it offers: {offered}", True
            )
        exposed = exposed_name(connection.name, own)
        if not toolset.options.tool_allowed(exposed):
            return ToolResult(
                f"{exposed} is left out by this config's allow_tools/deny_tools (a model is "
                "never offered it); change them to call it",
                True,
            )
        return await connection.call(own, arguments)
    finally:
        await connection.aclose()


def _server_name(connection: McpConnection, tool: str) -> str | None:
    """The server's own name for `tool`, given as that or as the exposed `mcp_SERVER_TOOL`."""
    names = [t.name for t in connection.tools]
    if tool in names:
        return tool
    return next((n for n in names if exposed_name(connection.name, n) == tool), None)


mcp.add_command(login)
mcp.add_command(logout)


@mcp.command("serve")
@click.option("--agent", "-a", "agents", multiple=True, metavar="NAME", help="Agents to offer.")
@click.option("--http", "port", type=click.IntRange(0, 65535), help="Streamable HTTP on PORT.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address for --http.")
@click.option(
    "--max-depth",
    type=click.IntRange(0, 100),
    default=2,
    show_default=True,
    help="Refuse calls nested deeper in `mcp serve` levels (an agent reaching itself).",
)
@pass_app
def serve(app: App, agents: tuple[str, ...], port: int | None, host: str, max_depth: int) -> None:
    """Offer agents as MCP tools `{task}` -> answer, on the configured stack: over stdio, or
    over streamable HTTP with --http PORT. Without --agent, every agent is offered."""
    from .serve import serve_agents

    with handle_errors():
        serve_agents(app, list(agents), port=port, host=host, max_depth=max_depth)
