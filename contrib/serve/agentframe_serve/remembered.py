"""Responses API answers by id, for `GET /v1/responses/{id}` and `previous_response_id`.

Kept in the configured store (`records`), with the key and session they belong to: a
restarted server and its replicas find them. A response lives as long as its session: once
the session is deleted, its responses are unknown."""

from __future__ import annotations

from typing import Any

from agentframe_core import Store

from .errors import ApiError
from .records import Records

__all__ = ["Remembered"]


class Remembered:
    """Responses by id, with the key and session they belong to."""

    def __init__(self, store: Store) -> None:
        self.store, self.records = store, Records(store)

    async def keep(self, owner: str, client_id: str, body: dict[str, Any]) -> None:
        await self.records.put("response", owner, body["id"], {"session": client_id, "body": body})

    async def find(self, owner: str, response_id: str, param: str) -> tuple[str, dict[str, Any]]:
        """The session and body of one of `owner`'s responses; another key's is unknown."""
        kept = await self.records.get("response", owner, response_id)
        session, body = (kept or {}).get("session"), (kept or {}).get("body")
        if (
            not isinstance(session, str)
            or not isinstance(body, dict)
            or not await self.store.context(f"{owner}.{session}")
        ):
            raise ApiError(
                404, f"{param}: no response {response_id!r}", param=param, code="not_found"
            )
        return session, body

    async def drop(self, owner: str, response_id: str) -> None:
        await self.records.drop("response", owner, response_id)
