"""`GET /v1/sessions/{id}/history`: a session's whole history, as a page showing what
happened needs it: every entry (those a compaction replaced and those still pending too,
where the store keeps them), each compaction with what it replaced, and the child sessions
(sub-agents) its tool calls started, which `.../children/{child}` shows the same way."""

from __future__ import annotations

import re
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse

from agentframe_core import Entry, EntryKind, ExportableStore, Store, StoredEntry, redact_data

from .conversations import Conversations
from .errors import ApiError
from .service import Service
from .sessions import known_session

__all__ = ["child_history", "session_history"]

#: An entry's content longer than this is cut (its full length is given), and a history
#: longer than `MAX_ENTRIES` gives its first ones (`truncated`).
MAX_CONTENT_CHARS = 20_000
MAX_ENTRIES = 20_000
_CHILD_ID = re.compile(r"^[A-Za-z0-9_.:-]{1,128}$")


async def session_history(service: Service, request: Request) -> JSONResponse:
    owner, client_id = await known_session(service, request)
    store_id = Conversations.store_id(owner, client_id)
    return JSONResponse({"id": client_id, **await _history(service.stack.store, store_id)})


async def child_history(service: Service, request: Request) -> JSONResponse:
    """A child session of the caller's session: listed by one of its tool results, and
    linked back to it by its first message (so a listed id alone opens nothing else)."""
    owner, client_id = await known_session(service, request)
    parent = Conversations.store_id(owner, client_id)
    child = request.path_params["child_id"]
    store = service.stack.store
    unknown = ApiError(404, f"no child session {child!r}", param="child_id", code="not_found")
    if not _CHILD_ID.match(child):
        raise unknown
    listed = {c["session_id"] for r in await _records(store, parent) for c in _children(r.entry)}
    if child not in listed:  # a tool result compacted away still counts
        raise unknown
    entries = await store.context(child)
    origin = entries[0].origin if entries else None
    if not isinstance(origin, dict) or origin.get("parent") != parent:
        raise unknown
    return JSONResponse({"id": child, "parent": client_id, **await _history(store, child)})


def _children(entry: Entry) -> list[dict[str, Any]]:
    """The child sessions a tool result lists (`meta["children"]`, the subagent plugin's)."""
    children = entry.meta.get("children") if entry.kind is EntryKind.TOOL_RESULT else None
    if not isinstance(children, list):
        return []
    return [
        {
            "session_id": str(c["session_id"]),
            "tool_call_id": entry.tool_call_id,
            "agent": c.get("agent"),
            "status": c.get("status"),
        }
        for c in children
        if isinstance(c, dict) and "session_id" in c
    ]


async def _records(store: Store, store_id: str) -> list[StoredEntry]:
    """Every entry where the store keeps them all, else those in context."""
    if isinstance(store, ExportableStore):
        return await store.history(store_id)
    return [StoredEntry(e) for e in await store.context(store_id)]


async def _history(store: Store, store_id: str) -> dict[str, Any]:
    records = await _records(store, store_id)
    total = len(records)
    records = records[:MAX_ENTRIES]
    return {
        "object": "session.history",
        "complete": isinstance(store, ExportableStore),
        "total": total,
        "truncated": total > len(records),
        "entries": [_entry(r) for r in records],
        "compactions": _compactions(records),
        "children": [c for r in records for c in _children(r.entry)],
    }


def _entry(record: StoredEntry) -> dict[str, Any]:
    e = record.entry
    content = e.content[:MAX_CONTENT_CHARS]
    return {
        "id": e.id,
        "kind": e.kind.value,
        "content": content,
        "chars": len(e.content),
        "tool_call_id": e.tool_call_id,
        "tool_name": e.tool_name,
        "tag": e.tag,
        "created_at": e.created_at,
        "meta": redact_data(e.meta),
        "subsumed": record.subsumed,
        "pending": record.pending,
    }


def _compactions(records: list[StoredEntry]) -> list[dict[str, Any]]:
    """Each compaction marker with the entries it replaced: those its `meta["subsumes"]`
    lists, else the replaced entries since the previous marker (a marker sits right after
    what it summarised). Sizes in characters, and tokens estimated at four characters each."""
    by_id = {r.entry.id: r.entry for r in records}
    out: list[dict[str, Any]] = []
    since: list[Entry] = []
    for record in records:
        e = record.entry
        if e.kind is EntryKind.COMPACTION:
            listed = e.meta.get("subsumes")
            replaced = (
                [by_id[i] for i in listed if i in by_id] if isinstance(listed, list) else since
            )
            before = sum(len(r.content) for r in replaced)
            out.append(
                {
                    "id": e.id,
                    "tag": e.tag,
                    "replaced": [r.id for r in replaced],
                    "chars_before": before,
                    "chars_after": len(e.content),
                    "tokens_before_estimate": -(-before // 4),
                    "tokens_after_estimate": -(-len(e.content) // 4),
                }
            )
            since = []
        if record.subsumed:
            since.append(e)
    return out
