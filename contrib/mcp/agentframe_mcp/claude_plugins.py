"""The MCP servers of the installed Claude Code plugins (`agentframe cc-plugins add`), as
`use: mcp` servers named `PLUGIN:SERVER`: each plugin's `.mcp.json` files (the
`{"mcpServers": {...}}` form or a flat `{name: server}`) and the `mcpServers` of its
plugin.json, `${CLAUDE_PLUGIN_ROOT}` standing for the plugin's folder.

A plugin that cannot be read is logged and left out: it never hides the other servers.
"""

from __future__ import annotations

import json
import logging
import stat
from pathlib import Path
from typing import Any

from .options import (
    MAX_FILE_BYTES,
    HttpServer,
    McpConfigError,
    StdioServer,
    _check_owner,
    parse_servers,
)

__all__ = ["plugin_servers"]

log = logging.getLogger("agentframe.mcp")

#: Servers taken from all plugins together; more are left out with a warning.
MAX_PLUGIN_SERVERS = 200


def plugin_servers() -> dict[str, StdioServer | HttpServer]:
    try:
        # agentframe-compat is optional (the `claude` extra): it is what installs and reads
        # Claude Code plugins; without it there are no plugins, hence no servers of theirs.
        from agentframe_compat import PluginError, installed_plugins, plugin_parts
    except ImportError:
        return {}
    found: dict[str, StdioServer | HttpServer] = {}
    for plugin in installed_plugins():
        try:
            parts = plugin_parts(plugin)
            raws: list[tuple[str, dict[str, Any]]] = [
                (str(path), _read(path)) for path in parts.mcp
            ]
            inline = parts.inline.get("mcpServers")
            if isinstance(inline, dict):
                raws.append((f"{plugin.root}/plugin.json", inline))
            for where, servers in raws:
                root = {"CLAUDE_PLUGIN_ROOT": str(plugin.root)}
                named = {f"{plugin.name}:{n}": _substitute(r, root) for n, r in servers.items()}
                found.update(parse_servers(named, where, plugin.root))
        except (PluginError, McpConfigError) as err:
            log.warning("Claude Code plugin %s: its MCP servers are left out: %s", plugin.name, err)
        if len(found) > MAX_PLUGIN_SERVERS:
            log.warning(
                "more than %d plugin MCP servers; the rest are left out", MAX_PLUGIN_SERVERS
            )
            return dict(list(found.items())[:MAX_PLUGIN_SERVERS])
    return found


def _read(path: Path) -> dict[str, Any]:
    """A plugin's .mcp.json in either form, as `{name: raw server}`."""
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            raise McpConfigError(f"{path}: not a regular file")
        _check_owner(path, info)
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
