"""Every server a `use: mcp` part starts, gathered from its sources in order (a later one
replaces a server of the same name): the installed Claude Code plugins' servers, the
project's `.mcp.json`, the file named by `config`, then `servers` inline."""

from __future__ import annotations

from pathlib import Path

from .claude_plugins import plugin_servers
from .options import (
    HttpServer,
    McpOptions,
    StdioServer,
    find_project_file,
    parse_servers,
    read_file,
)
from .projectservers import project_servers

__all__ = ["load_servers"]


def load_servers(
    options: McpOptions,
    cwd: Path,
    base: Path | None = None,
    *,
    project: bool | None = None,
    notes: list[str] | None = None,
) -> dict[str, StdioServer | HttpServer]:
    """Every configured server that is allowed, by name (later sources win). `base`: the
    folder of the config file holding the inline `servers` (None: the working folder's).
    `project`: whether the project's .mcp.json is read when `options.project` leaves it
    open (None: it is); what its folder's trust and approvals leave out is said in `notes`."""
    found: dict[str, StdioServer | HttpServer] = {}
    if options.claude_plugins:
        found.update(plugin_servers())
    wanted = options.project if options.project is not None else project
    path = find_project_file(cwd) if wanted is not False else None
    if path is not None:
        found.update(project_servers(path, notes))
    if options.config is not None:
        found.update(read_file(options.config.expanduser()))
    found.update(parse_servers(options.servers, "servers", base or cwd))
    return {name: server for name, server in found.items() if options.server_allowed(name)}
