"""What every request passes before it reaches an agent: the Host, Origin and
`Sec-Fetch-Site` checks (a web page must not drive a loopback server through the browser),
the API key, the body cap, and the per-key concurrency limit."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from starlette.requests import Request

from .errors import ApiError
from .keys import Keys
from .settings import ServeSettings

__all__ = ["Gate", "is_loopback"]

_LOOPBACK_NAMES = {"localhost", "127.0.0.1", "::1", "[::1]"}
#: `Sec-Fetch-Site` values of a request another site's page made (a browser sends them).
_OTHER_SITES = {"cross-site", "same-site"}


def is_loopback(host: str) -> bool:
    """Is `host` (a bind address or a Host header's name) this machine only?"""
    import ipaddress

    name = host.strip().lower()
    if name in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name.strip("[]")).is_loopback
    except ValueError:
        return False


def _host_name(header: str) -> str:
    """The name of a Host header, without its port (`[::1]:8000` -> `[::1]`)."""
    if header.startswith("["):
        return header.split("]", 1)[0] + "]"
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


@dataclass(slots=True)
class Gate:
    keys: Keys
    settings: ServeSettings
    #: Bound to loopback without keys: only loopback Host headers are served (a web page
    #: reaching it through DNS rebinding would otherwise be served). With keys, a reverse
    #: proxy on the machine may pass its own Host.
    loopback: bool
    _running: dict[str, int] = field(default_factory=dict)

    def admit(self, request: Request) -> str:
        """The owner of the request (the key's name), or an ApiError refusing it."""
        headers = request.headers
        if (
            self.loopback
            and not self.keys.required  # with keys, a page can't call: it has no key
            and not is_loopback(_host_name(headers.get("host", "")))
        ):
            raise ApiError(403, "this server answers only to a loopback Host header")
        origin = headers.get("origin")
        same_origin = origin == f"{request.url.scheme}://{headers.get('host', '')}"
        if origin is not None and not same_origin and origin not in self.settings.cors_origins:
            raise ApiError(403, "this origin is not allowed (serve.cors_origins)")
        if origin is None and headers.get("sec-fetch-site") in _OTHER_SITES:
            # a browser says another site's page asked (an `<img>`, a link): no Origin to allow
            raise ApiError(403, "a request another site's page made is refused")
        auth = headers.get("authorization", "")
        scheme, _, token = auth.partition(" ")
        presented = token.strip() if scheme.lower() == "bearer" else None
        owner = self.keys.owner(presented or headers.get("x-api-key"))
        if owner is None:
            raise ApiError(401, "a valid API key is required (Authorization: Bearer KEY)")
        return owner

    def hold(self, owner: str) -> Callable[[], None]:
        """Take one of `owner`'s run slots (429 when all are taken); returns its release."""
        running = self._running.get(owner, 0)
        if running >= self.settings.max_concurrent_per_key:
            raise ApiError(
                429,
                f"too many requests at once for this key "
                f"(serve.max_concurrent_per_key: {self.settings.max_concurrent_per_key})",
                code="concurrency_limit",
            )
        self._running[owner] = running + 1
        released = False

        def release() -> None:
            nonlocal released
            if not released:
                released = True
                left = self._running[owner] - 1
                if left:
                    self._running[owner] = left
                else:
                    del self._running[owner]

        return release

    async def body(self, request: Request) -> dict[str, Any]:
        """The JSON object of the request, read no further than the cap."""
        raw = await self.raw_body(request)
        try:
            value = json.loads(raw)
        except ValueError as err:
            raise ApiError(400, f"the body is not JSON: {err}") from None
        except RecursionError:
            raise ApiError(400, "the body is nested too deeply") from None
        if not isinstance(value, dict):
            raise ApiError(400, "the body must be a JSON object")
        return value

    async def raw_body(self, request: Request) -> bytes:
        """The request's body, read no further than the cap and no longer than the body
        timeout (a client trickling it must not hold a connection and a run slot)."""
        cap, seconds = self.settings.max_body_bytes, self.settings.body_timeout_seconds
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > cap:
            raise ApiError(413, f"the body is larger than {cap} bytes (serve.max_body_bytes)")
        chunks: list[bytes] = []
        size = 0
        try:
            async with asyncio.timeout(seconds):
                async for chunk in request.stream():
                    size += len(chunk)
                    if size > cap:
                        raise ApiError(
                            413, f"the body is larger than {cap} bytes (serve.max_body_bytes)"
                        )
                    chunks.append(chunk)
        except TimeoutError:
            raise ApiError(
                408, f"the body did not arrive within {seconds:g} s (serve.body_timeout_seconds)"
            ) from None
        return b"".join(chunks)
