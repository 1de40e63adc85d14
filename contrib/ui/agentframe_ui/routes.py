"""The pages as routes of `agentframe serve` (its `agentframe_serve.routes` entry point):
`/` the application, `/ui/...` its modules and stylesheet, every answer with a strict
Content-Security-Policy (no inline script, nothing from another origin, no string ever
assigned as HTML: Trusted Types are required and none are allowed)."""

from __future__ import annotations

from pathlib import Path

from agentframe_serve import ServeSettings
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, PlainTextResponse
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["CSP", "routes"]

STATIC = Path(__file__).parent / "static"

CSP = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
        "require-trusted-types-for 'script'",
        "trusted-types 'none'",
    ]
)
HEADERS = {
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    "cache-control": "no-cache",
}


class _Secured:
    """An ASGI app whose every answer carries `HEADERS`, its errors too (a missing file, a
    wrong method: `StaticFiles` raises them for the router to answer, without them)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def send_secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                MutableHeaders(scope=message).update(HEADERS)
            await send(message)

        try:
            await self.app(scope, receive, send_secured)
        except HTTPException as err:
            answer = PlainTextResponse(err.detail, err.status_code, headers=err.headers)
            await answer(scope, receive, send_secured)


async def _index(request: Request) -> FileResponse:
    return FileResponse(STATIC / "index.html", headers=HEADERS)


def routes(settings: ServeSettings) -> list[BaseRoute]:
    """The UI's routes; the pages learn everything else from the server's API."""
    return [
        Route("/", _index, methods=["GET"]),
        Mount("/ui", app=_Secured(StaticFiles(directory=STATIC))),
    ]
