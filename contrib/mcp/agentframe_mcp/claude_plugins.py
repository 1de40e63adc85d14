"""The MCP servers of the installed Claude Code plugins (`agentframe cc-plugins add`), as
`use: mcp` servers named `PLUGIN:SERVER`: each plugin's `.mcp.json` files (the
`{"mcpServers": {...}}` form or a flat `{name: server}`) and the `mcpServers` of its
plugin.json, `${CLAUDE_PLUGIN_ROOT}` standing for the plugin's folder. The plugins are
agentframe-compat's: it lists them through the `agentframe_plugin_mcp_servers` hook, so
neither package imports the other.

A plugin that cannot be read is logged and left out: it never hides the other servers.
"""

from __future__ import annotations

import json
import logging
import stat
from pathlib import Path
from typing import Any

from agentframe_core import PluginHost

from .options import (
    MAX_FILE_BYTES,
    HttpServer,
    McpConfigError,
    StdioServer,
    check_owner,
    parse_servers,
)

__all__ = ["plugin_servers"]

log = logging.getLogger("agentframe.mcp")

#: Servers taken from all plugins together; more are left out with a warning.
MAX_PLUGIN_SERVERS = 200
#: The hook that lists them, implemented by agentframe-compat (the `claude` extra): without
#: it there are no plugins, hence no servers of theirs.
HOOK = "agentframe_plugin_mcp_servers"


def plugin_servers() -> dict[str, StdioServer | HttpServer]:
    host = PluginHost(builtins=False)
    host.load_implementers({HOOK})
    found: dict[str, StdioServer | HttpServer] = {}
    for declared in getattr(host.pm.hook, HOOK)():
        for name, root, files, inline in declared:
            found.update(_servers_of(name, root, files, inline))
            if len(found) > MAX_PLUGIN_SERVERS:
                log.warning(
                    "more than %d plugin MCP servers; the rest are left out", MAX_PLUGIN_SERVERS
                )
                return dict(list(found.items())[:MAX_PLUGIN_SERVERS])
    return found


def _servers_of(
    plugin: str, root: Path, files: list[Path], inline: dict[str, Any]
) -> dict[str, StdioServer | HttpServer]:
    """One plugin's servers, named `PLUGIN:SERVER`; none when one of its entries is bad."""
    try:
        raws = [(str(path), _read(path)) for path in files]
        if inline:
            raws.append((f"{root}/plugin.json", inline))
        found: dict[str, StdioServer | HttpServer] = {}
        for where, servers in raws:
            values = {"CLAUDE_PLUGIN_ROOT": str(root)}
            named = {f"{plugin}:{n}": _substitute(r, values) for n, r in servers.items()}
            found.update(parse_servers(named, where, root))
        return found
    except McpConfigError as err:
        log.warning("Claude Code plugin %s: its MCP servers are left out: %s", plugin, err)
        return {}


def _read(path: Path) -> dict[str, Any]:
    """A plugin's .mcp.json in either form, as `{name: raw server}`."""
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            raise McpConfigError(f"{path}: not a regular file")
        check_owner(path, info)
        if info.st_size > MAX_FILE_BYTES:
            raise McpConfigError(f"{path}: {info.st_size} bytes; an mcp.json is at most 1 MiB")
        data = json.loads(path.read_bytes())
    except json.JSONDecodeError as err:
        raise McpConfigError(f"{path}:{err.lineno}: not JSON: {err.msg}") from None
    except (OSError, UnicodeDecodeError) as err:
        raise McpConfigError(f"{path}: cannot be read: {err}") from None
    if isinstance(data, dict) and isinstance(data.get("mcpServers"), dict):
        data = data["mcpServers"]
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise McpConfigError(
            f'{path}: expected {{"mcpServers": {{name: server}}}} or {{name: server}}'
        )
    return data


def _substitute(raw: Any, values: dict[str, str]) -> Any:
    """`${CLAUDE_PLUGIN_ROOT}` replaced in every string of a server entry."""
    if isinstance(raw, str):
        for key, value in values.items():
            raw = raw.replace(f"${{{key}}}", value)
        return raw
    if isinstance(raw, list):
        return [_substitute(v, values) for v in raw]
    if isinstance(raw, dict):
        return {k: _substitute(v, values) for k, v in raw.items()}
    return raw
