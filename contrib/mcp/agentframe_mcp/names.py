"""Model-facing tool names: `mcp_{server}_{tool}`, in the characters and length providers accept."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable

__all__ = ["MAX_NAME", "exposed_name", "unique_names"]

MAX_NAME = 64
_BAD = re.compile(r"[^a-zA-Z0-9_-]")

log = logging.getLogger("agentframe.mcp")


def exposed_name(server: str, tool: str) -> str:
    """`mcp_{server}_{tool}` with every other character replaced by `_`, cut to 64."""
    return _BAD.sub("_", f"mcp_{server}_{tool}")[:MAX_NAME]


def unique_names(pairs: Iterable[tuple[str, str]]) -> dict[str, tuple[str, str]]:
    """Exposed name -> (server, tool). Tools that end up under one name are all left out, with
    a warning naming them: which one the model meant cannot be known, and the others work."""
    found: dict[str, list[tuple[str, str]]] = {}
    for server, tool in pairs:
        found.setdefault(exposed_name(server, tool), []).append((server, tool))
    unique = {}
    for name, owners in found.items():
        if len(owners) == 1:
            unique[name] = owners[0]
            continue
        both = " and ".join(f"{server}/{tool}" for server, tool in owners)
        log.warning(
            "MCP tools %s are both exposed as %r: both left out (rename a server, or deny "
            "that name with deny_tools to silence this)",
            both,
            name,
        )
    return unique
