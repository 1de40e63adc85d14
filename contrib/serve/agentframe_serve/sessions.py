"""`/v1/sessions`: a key's own sessions, listed, shown and deleted (agentframe's own API).

Ids are the ones clients see (`X-Session-Id`, `session_id`); another key's session is
unknown here, answered exactly as an id never used."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse

from .conversations import Conversations, check_client_id
from .errors import ApiError
from .service import Service

__all__ = ["delete_session", "list_sessions", "show_session"]


async def list_sessions(service: Service, request: Request) -> JSONResponse:
    owner = service.gate.admit(request)
    rows: list[dict[str, Any]] = []
    for info in await service.stack.store.sessions():
        client_id = Conversations.client_id(owner, info.id)
        if client_id is not None:
            rows.append(
                {
                    "id": client_id,
                    "object": "session",
                    "created_at": info.created_at // 1_000_000_000,
                    "updated_at": info.updated_at // 1_000_000_000,
                    "entries": info.entries,
                    "title": info.title,
                }
            )
    return JSONResponse({"object": "list", "data": rows})


async def _known(service: Service, request: Request) -> tuple[str, str]:
    owner = service.gate.admit(request)
    client_id = check_client_id(request.path_params["session_id"], "session_id")
    if not await service.conversations.exists(owner, client_id):
        raise ApiError(404, f"no session {client_id!r}", param="session_id", code="not_found")
    return owner, client_id


async def show_session(service: Service, request: Request) -> JSONResponse:
    owner, client_id = await _known(service, request)
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
    owner, client_id = await _known(service, request)
    store_id = Conversations.store_id(owner, client_id)
    await service.stack.store.delete(store_id)
    service.conversations.forget(store_id)
    return JSONResponse({"id": client_id, "object": "session", "deleted": True})
