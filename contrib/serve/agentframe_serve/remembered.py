"""Responses API answers by id, for `GET /v1/responses/{id}` and `previous_response_id`."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from .errors import ApiError

__all__ = ["Remembered"]


class Remembered:
    """Responses by id, with the key and session they belong to (an LRU, in memory)."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._kept: OrderedDict[str, tuple[str, str, dict[str, Any]]] = OrderedDict()

    def keep(self, owner: str, client_id: str, body: dict[str, Any]) -> None:
        self._kept[body["id"]] = (owner, client_id, body)
        while len(self._kept) > self.capacity:
            self._kept.popitem(last=False)

    def find(self, owner: str, response_id: str, param: str) -> tuple[str, dict[str, Any]]:
        """The session and body of one of `owner`'s responses; another key's is unknown."""
        kept = self._kept.get(response_id)
        if kept is None or kept[0] != owner:
            raise ApiError(
                404, f"{param}: no response {response_id!r}", param=param, code="not_found"
            )
        return kept[1], kept[2]

    def drop(self, response_id: str) -> None:
        self._kept.pop(response_id, None)
