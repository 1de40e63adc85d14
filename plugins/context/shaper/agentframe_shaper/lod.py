"""Levels of detail of one entry: what the renderer will show of it, and its stub.

A stub is made at render time only: the stored entry is never changed.
"""

from __future__ import annotations

import json
from dataclasses import replace

from agentframe_core import Entry, EntryKind, head_tail

__all__ = ["can_stub", "shown_text", "stub"]

_STUBBABLE = frozenset(
    {
        EntryKind.USER,
        EntryKind.ASSISTANT,
        EntryKind.TOOL_CALL,
        EntryKind.TOOL_RESULT,
        EntryKind.NOTIFICATION,
    }
)


def can_stub(entry: Entry, above_chars: int) -> bool:
    return entry.kind in _STUBBABLE and len(entry.content) > above_chars


def stub(entry: Entry, head_chars: int, loadable: bool) -> Entry:
    """The entry with its content replaced by its id, its head and how to get the rest."""
    how = (
        f'call load_message with id "{entry.id}" to read all of it'
        if loadable
        else "shortened to save room"
    )
    text = f"[entry {entry.id}: {len(entry.content)} characters; {how}]\n"
    text += entry.content[:head_chars] + "…"
    if entry.kind is EntryKind.TOOL_CALL:  # the arguments must stay a JSON object
        text = json.dumps({"_stub": text}, ensure_ascii=False)
    return replace(entry, content=text)


def shown_text(entry: Entry, inline_chars: int) -> str:
    """At least the text the kernel's renderer shows for `entry`, labels included, so that
    counting it never undercounts the message."""
    kind, content = entry.kind, entry.content
    if kind is EntryKind.TOOL_CALL:
        return f"{entry.tool_name} {entry.tool_call_id} {_arguments_json(content)}"
    if kind is EntryKind.TOOL_RESULT:
        label = f"[result of {entry.tool_name or 'tool'} call {entry.tool_call_id}]\n"
        return label + head_tail(content, inline_chars)
    if kind is EntryKind.COMPACTION:
        return f"[summary of the earlier conversation]\n{content}"
    if kind is EntryKind.NOTIFICATION:
        return f"[notification {entry.tag or ''}]\n{content}"
    return content


def _arguments_json(content: str) -> str:
    """The arguments as the renderer re-encodes them (a non-object becomes `_raw`/`_value`)."""
    try:
        value = json.loads(content) if content else {}
    except ValueError:
        value = {"_raw": content}
    if not isinstance(value, dict):
        value = {"_value": value}
    return json.dumps(value, default=str)  # ASCII-escaped, as the wire sends it: the longest
