"""Which sessions were started by another: the conventions parts use to link them.

A child session's first entry has as `origin` a mapping with `parent` (the parent session's
id) and, optionally, `tool_call_id`, `agent` and `via` (the part that started it). A parent's
tool result may list the sessions it started in `meta["children"]`, each a mapping with
`session_id` and, optionally, `agent` and `status`. The sub-agent plugin writes both;
`agentframe sessions list --children` and `sessions show` read them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..contract.model import Entry

__all__ = ["child_pointers", "parent_link"]


def parent_link(entries: Sequence[Entry]) -> dict[str, str] | None:
    """The link to the parent session, if the first entry carries one."""
    if not entries:
        return None
    origin = entries[0].origin
    if not isinstance(origin, Mapping) or not isinstance(origin.get("parent"), str):
        return None
    keys = ("parent", "tool_call_id", "agent", "via")
    return {k: str(origin[k]) for k in keys if isinstance(origin.get(k), str)}


def child_pointers(entry: Entry) -> list[dict[str, Any]]:
    """The child sessions a tool result says it started."""
    children = entry.meta.get("children")
    if not isinstance(children, list):
        return []
    return [
        dict(c)
        for c in children
        if isinstance(c, Mapping) and isinstance(c.get("session_id"), str) and c["session_id"]
    ]
