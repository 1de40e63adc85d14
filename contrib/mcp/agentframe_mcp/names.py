"""Model-facing tool names: `mcp_{server}_{tool}`, in the characters and length providers accept."""

from __future__ import annotations

import re
from collections.abc import Iterable

from agentframe_core import AgentframeError

__all__ = ["MAX_NAME", "ToolNameCollisionError", "exposed_name", "unique_names"]

MAX_NAME = 64
_BAD = re.compile(r"[^a-zA-Z0-9_-]")


class ToolNameCollisionError(AgentframeError):
    """Two MCP tools would reach the model under one name."""


def exposed_name(server: str, tool: str) -> str:
    """`mcp_{server}_{tool}` with every other character replaced by `_`, cut to 64."""
    return _BAD.sub("_", f"mcp_{server}_{tool}")[:MAX_NAME]


def unique_names(pairs: Iterable[tuple[str, str]]) -> dict[str, tuple[str, str]]:
    """Exposed name -> (server, tool); two tools under one name is an error naming both."""
    found: dict[str, tuple[str, str]] = {}
    for server, tool in pairs:
        name = exposed_name(server, tool)
        other = found.get(name)
        if other is not None:
            raise ToolNameCollisionError(
                f"MCP tools {other[0]}/{other[1]} and {server}/{tool} are both exposed as "
                f"{name!r}; deny one of them (deny_tools) or rename a server"
            )
        found[name] = (server, tool)
    return found
