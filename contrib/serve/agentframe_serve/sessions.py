"""`/v1/sessions`: a key's own sessions, listed (or searched), shown and deleted
(agentframe's own API).

Ids are the ones clients see (`X-Session-Id`, `session_id`); another key's session is
unknown here, answered exactly as an id never used."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse

from agentframe_core import SearchableStore, SessionInfo

from .conversations import Conversations, check_client_id
from .errors import ApiError
from .service import Service

__all__ = ["delete_session", "known_session", "list_sessions", "show_session"]

#: A search reads the entries of at most this many sessions (the most recently updated
#: first); titles and ids are matched in every session.
SEARCHED_SESSIONS = 500
MAX_QUERY_CHARS = 200


def _int_param(request: Request, name: str, default: int, high: int) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    if not raw.isdigit() or int(raw) > high:
        raise ApiError(400, f"{name}: a whole number from 0 to {high}", param=name)
    return int(raw)


def _row(client_id: str, info: SessionInfo) -> dict[str, Any]:
    return {
        "id": client_id,
        "object": "session",
        "created_at": info.created_at // 1_000_000_000,
        "updated_at": info.updated_at // 1_000_000_000,
        "entries": info.entries,
        "title": info.title,
    }


async def list_sessions(service: Service, request: Request) -> JSONResponse:
    """The caller's sessions, newest first; `q` keeps those whose title or id holds it, or
    (a store with full-text search) one of whose entries matches it; `offset`, `limit` page;
    `total` counts what is listed (the matches when searching)."""
    owner = service.gate.admit(request)
    query = request.query_params.get("q", "").strip()
    if len(query) > MAX_QUERY_CHARS:
        raise ApiError(400, f"q: at most {MAX_QUERY_CHARS} characters", param="q")
    offset = _int_param(request, "offset", 0, 10**9)
    limit = _int_param(request, "limit", 10**9, 10**9)
    owned = [
        (client_id, info)
        for info in await service.stack.store.sessions()
        if (client_id := Conversations.client_id(owner, info.id)) is not None
    ]
    if query:  # every match (bounded by SEARCHED_SESSIONS), to count them
        matches = await _search(service, owned, query)
        rows, total = matches[offset : offset + limit], len(matches)
    else:
        rows, total = [_row(c, i) for c, i in owned[offset : offset + limit]], len(owned)
    return JSONResponse({"object": "list", "data": rows, "total": total})


async def _search(
    service: Service, owned: list[tuple[str, SessionInfo]], query: str
) -> list[dict[str, Any]]:
    store = service.stack.store
    folded = query.casefold()
    rows: list[dict[str, Any]] = []
    for n, (client_id, info) in enumerate(owned):
        if folded in client_id.casefold() or folded in (info.title or "").casefold():
            rows.append(_row(client_id, info) | {"match": {"field": "title"}})
        elif n < SEARCHED_SESSIONS and isinstance(store, SearchableStore):
            hits = await store.search(info.id, query, limit=1)
            if hits:
                hit = hits[0]
                snippet = {"field": "entry", "entry_id": hit.id, "kind": hit.kind.value}
                rows.append(
                    _row(client_id, info) | {"match": snippet | _snippet(hit.content, query)}
                )
    return rows


def _snippet(content: str, query: str, width: int = 80) -> dict[str, str]:
    """Where the earliest of `query`'s words is in `content`, with text around it."""
    folded = content.casefold()
    at = min((i for w in query.casefold().split() if (i := folded.find(w)) >= 0), default=0)
    start = max(0, at - width)
    return {"snippet": content[start : at + width]}


async def known_session(service: Service, request: Request) -> tuple[str, str]:
    """The request's owner and its `{session_id}`, a session of the owner's (else a 404)."""
    owner = service.gate.admit(request)
    client_id = check_client_id(request.path_params["session_id"], "session_id")
    if not await service.conversations.exists(owner, client_id):
        raise ApiError(404, f"no session {client_id!r}", param="session_id", code="not_found")
    return owner, client_id


async def show_session(service: Service, request: Request) -> JSONResponse:
    owner, client_id = await known_session(service, request)
    entries = await service.stack.store.context(Conversations.store_id(owner, client_id))
    return JSONResponse(
        {
            "id": client_id,
            "object": "session",
            "entries": [
                {
                    "id": e.id,
                    "kind": e.kind.value,
                    "content": e.content,
                    "tool_call_id": e.tool_call_id,
                    "tool_name": e.tool_name,
                    "created_at": e.created_at,
                }
                for e in entries
            ],
        }
    )


async def delete_session(service: Service, request: Request) -> JSONResponse:
    owner, client_id = await known_session(service, request)
    store_id = Conversations.store_id(owner, client_id)
    await service.stack.store.delete(store_id)
    return JSONResponse({"id": client_id, "object": "session", "deleted": True})
