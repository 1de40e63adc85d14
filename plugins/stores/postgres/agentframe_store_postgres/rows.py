"""Entries as table rows and back: JSON for origin and meta, and NUL-safe text.

PostgreSQL text cannot hold NUL. A field with one goes to its column with U+FFFD in its place
(so search and the id's uniqueness still work on it) and, exactly, to the row's `exact` JSON,
which decoding prefers."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from agentframe_core import Entry, EntryKind

__all__ = ["COLUMNS", "Row", "decode", "encode"]

_KINDS = {kind.value: kind for kind in EntryKind}
_TEXT_FIELDS = ("id", "content", "tool_call_id", "tool_name", "tag")
COLUMNS = "id, kind, content, tool_call_id, tool_name, tag, origin, meta, exact, created_at"

Row = tuple[
    str, str, str, str | None, str | None, str | None, str | None, str | None, str | None, int
]


def encode(entry: Entry) -> Row:
    """The columns of `entry`, before any transaction starts (a bad entry writes nothing)."""
    exact = {
        name: value
        for name in _TEXT_FIELDS
        if isinstance(value := getattr(entry, name), str) and "\x00" in value
    }
    safe = {name: value.replace("\x00", "\ufffd") for name, value in exact.items()}
    return (
        safe.get("id", entry.id),
        entry.kind.value,
        safe.get("content", entry.content),
        safe.get("tool_call_id", entry.tool_call_id),
        safe.get("tool_name", entry.tool_name),
        safe.get("tag", entry.tag),
        None if entry.origin is None else _json(entry, "origin", entry.origin),
        _json(entry, "meta", entry.meta) if entry.meta else None,
        _json(entry, "text", exact) if exact else None,
        entry.created_at,
    )


def _json(entry: Entry, field: str, value: Any) -> str:
    """JSON text (NUL written as \\u0000, so it fits a text column)."""
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError) as err:
        raise TypeError(f"entry {entry.id!r}: {field} must be JSON-serialisable: {err}") from err


def decode(row: Sequence[Any]) -> Entry:
    entry_id, kind, content, tool_call_id, tool_name, tag, origin, meta, exact, created_at = row[
        :10
    ]
    fields = {
        "id": entry_id,
        "content": content,
        "tool_call_id": tool_call_id,
        "tool_name": tool_name,
        "tag": tag,
    }
    if exact is not None:
        fields.update(json.loads(exact))
    return Entry(
        kind=_KINDS.get(kind) or EntryKind(kind),
        origin=None if origin is None else json.loads(origin),
        created_at=created_at,
        meta={} if meta is None else json.loads(meta),
        **fields,
    )
