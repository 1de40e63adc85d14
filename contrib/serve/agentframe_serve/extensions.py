"""What another package's routes (an `agentframe_serve.routes` entry point) may ask of the
server: an `ApiRoute` is answered as the server's own endpoints are (the caller admitted by
its key and Origin, an `ApiError` answered as the API's error object, any other failure as a
500 without a traceback), and its endpoint gets an `ApiCall`: the request, whose key made it,
and the server's settings, working folder and config. agentframe-kg (`/v1/kg`) and
agentframe-otel (`/v1/traces`) add theirs this way; the web UI's pages are plain routes."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response

from agentframe_core import Config

from .conversations import Conversations, check_client_id
from .settings import ServeSettings

__all__ = ["ApiCall", "ApiRoute"]


@dataclass(frozen=True, slots=True)
class ApiCall:
    """One admitted request to an `ApiRoute`."""

    request: Request
    #: The name of the key that made the request: sessions are kept per key.
    owner: str
    settings: ServeSettings
    cwd: Path
    #: The config the stack was built from, when known.
    config: Config | None

    def stored_session(self, session_id: str, param: str = "session_id") -> str:
        """The store's id of the caller's session `session_id` (a 400 naming `param` when
        it is not a valid session id)."""
        return Conversations.store_id(self.owner, check_client_id(session_id, param))

    def callers_session(self, store_id: str) -> str | None:
        """The caller's own id of the stored session `store_id`; None when it belongs to
        another key, whose sessions the caller must not see."""
        return Conversations.client_id(self.owner, store_id)


@dataclass(frozen=True, slots=True)
class ApiRoute:
    """A route answered as the server's own; `methods` as Starlette's `Route` takes them."""

    path: str
    endpoint: Callable[[ApiCall], Awaitable[Response]]
    methods: tuple[str, ...] = ("GET",)
