"""OAuth for HTTP servers (MCP authorization, spec 2025-11-25), on the SDK's client support.

Every HTTP server without an `Authorization` header of its own gets the SDK's
`OAuthClientProvider`: on a 401 it discovers the protected resource and authorization server
metadata, registers (a client ID metadata document when the server takes one, else dynamic
registration, unless the config names a pre-registered client), runs PKCE, asks for the
scopes the server names (and more on a 403 `insufficient_scope`), and refreshes tokens. A
`client_credentials` server gets tokens with no person at all.

The browser step happens only in `agentframe mcp login SERVER` (`LoginFlow`): a run that
would need it fails with `LoginRequiredError`, saying to log in. Tokens are kept per server
in the user's data folder, mode 0600, with the server's URL: a token is never sent to a URL
it was not issued for.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import secrets
import socket
import time
import webbrowser
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import parse_qs, quote, urlencode, urlsplit, urlunsplit

import httpx2
from mcp.client.auth import OAuthClientProvider
from mcp.client.auth.extensions.client_credentials import (
    ClientCredentialsOAuthProvider,
    PrivateKeyJWTOAuthProvider,
    SignedJWTParameters,
)
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)
from pydantic import AnyUrl, BaseModel, ConfigDict, Field, ValidationError

from agentframe_core import AgentframeError, data_dir, redact_text

__all__ = [
    "LoginFlow",
    "LoginRequiredError",
    "OAuthSettings",
    "TokenStore",
    "make_auth",
    "token_path",
    "union_scopes",
]

#: A token file larger than this is not ours: refused.
MAX_TOKEN_FILE = 256 * 1024
CALLBACK_PATH = "/callback"


def _no_traceback(record: logging.LogRecord) -> bool:
    """The SDK logs a failed OAuth flow with its traceback: keep the message, not the trace
    (a refused login is reported by the connection, so it is not logged twice)."""
    if record.exc_info and record.exc_info[1] is not None:
        err = record.exc_info[1]
        if isinstance(err, LoginRequiredError):
            return False
        record.msg = f"{record.getMessage()}: {redact_text(str(err))[:500]}"
        record.args, record.exc_info, record.exc_text = None, None, None
    return True


logging.getLogger("mcp.client.auth.oauth2").addFilter(_no_traceback)


class LoginRequiredError(AgentframeError):
    """The server needs a person to log in (no token, an expired one that cannot be refreshed,
    or a scope it was not given): `agentframe mcp login SERVER`."""


_ENV_NAME = r"^[A-Za-z_][A-Za-z0-9_]*$"


class OAuthSettings(BaseModel):
    """`auth:` of an HTTP server entry. All optional: without it the server's own metadata
    decides (discovery, registration, scopes)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    grant: Literal["authorization_code", "client_credentials"] = "authorization_code"
    client_id: Annotated[str, Field(min_length=1)] | None = None
    #: The environment variable holding a pre-registered client's secret (never the secret).
    client_secret_env: Annotated[str, Field(pattern=_ENV_NAME)] | None = None
    #: For client_credentials with `private_key_jwt`: the variable holding the PEM key.
    private_key_env: Annotated[str, Field(pattern=_ENV_NAME)] | None = None
    signing_algorithm: Literal["ES256", "ES384", "RS256", "RS384", "RS512", "PS256"] = "ES256"
    token_endpoint_auth_method: (
        Literal["none", "client_secret_post", "client_secret_basic"] | None
    ) = None
    #: Scopes to ask for; without them, those the server names (WWW-Authenticate, metadata).
    scopes: list[str] = Field(default_factory=list)
    #: This client's ID metadata document (an https URL), used where the server supports it.
    client_metadata_url: Annotated[str, Field(pattern=r"^https://")] | None = None
    #: The loopback port of `mcp login`'s redirect; 0: a free one, kept once registered.
    redirect_port: Annotated[int, Field(ge=0, le=65535)] = 0
    login_timeout: Annotated[float, Field(gt=0, le=3600)] = 300.0

    def secret(self, server: str, key: str = "client_secret_env") -> str | None:
        """The value of the variable `key` names; an unset one is an error naming it."""
        name = getattr(self, key)
        if name is None:
            return None
        value = os.environ.get(name)
        if not value:
            raise AgentframeError(f"mcpServers.{server}.auth.{key}: ${name} is not set")
        return value


def token_path(server: str) -> Path:
    """Where a server's tokens live (the file name is the server's name, made safe)."""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in server)[:100] or "_"
    return data_dir() / "mcp" / "tokens" / f"{safe}.json"


class TokenStore:
    """The SDK's `TokenStorage` for one server, in a file only its user can read. The file
    names the server's URL; tokens stored for another URL are ignored."""

    def __init__(
        self, server: str, url: str, preregistered: OAuthClientInformationFull | None = None
    ) -> None:
        self.server, self.url, self.path = server, url, token_path(server)
        self.preregistered = preregistered  # from the config: kept in memory, never written
        #: Why the last request could not be authorized without a person (the transport
        #: reports only that the connection closed).
        self.refused: LoginRequiredError | None = None

    def _read(self) -> dict[str, Any]:
        try:
            info = self.path.stat()
            if info.st_size > MAX_TOKEN_FILE:
                return {}
            data = json.loads(self.path.read_bytes())
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict) or data.get("url") != self.url:
            return {}
        return data

    def _write(self, **changes: Any) -> None:
        data = self._read() | changes | {"url": self.url}
        folder = self.path.parent
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(folder, 0o700)
        # atomic_write cannot set a mode; the file must never exist readable by others.
        tmp = folder / f".{self.path.name}.{secrets.token_hex(4)}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(data, handle)
            os.replace(tmp, self.path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise

    async def get_tokens(self) -> OAuthToken | None:
        raw = self._read().get("tokens")
        try:
            return OAuthToken.model_validate(raw) if raw else None
        except ValidationError:
            return None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        expires = time.time() + tokens.expires_in if tokens.expires_in else None
        self._write(
            tokens=tokens.model_dump(mode="json", exclude_none=True),
            expires_at=expires,
            wanted_scope=None,
        )

    def expires_at(self) -> float | None:
        expires = self._read().get("expires_at")
        return float(expires) if isinstance(expires, int | float) else None

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        if self.preregistered is not None:
            return self.preregistered
        raw = self._read().get("client_info")
        try:
            return OAuthClientInformationFull.model_validate(raw) if raw else None
        except ValidationError:
            return None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        if self.preregistered is not None:
            return
        self._write(client_info=client_info.model_dump(mode="json", exclude_none=True))

    def wanted_scope(self) -> str | None:
        """A scope a run was refused for (a 403 step-up): `mcp login` asks for it."""
        scope = self._read().get("wanted_scope")
        return scope if isinstance(scope, str) else None

    def want_scope(self, scope: str | None) -> None:
        self._write(wanted_scope=scope)

    def redirect_port(self) -> int | None:
        """The loopback port the stored registration was made with."""
        client = self._read().get("client_info") or {}
        for uri in client.get("redirect_uris") or []:
            parts = urlsplit(str(uri))
            if parts.hostname in ("127.0.0.1", "localhost") and parts.port:
                return parts.port
        return None

    def forget_tokens(self) -> None:
        """Before a login: its flow must run even while a token still works."""
        if self._read():
            self._write(tokens=None)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class LoginFlow:
    """The browser step of `mcp login`: a loopback HTTP server takes the redirect. The URL is
    opened in a browser and printed (with `say`) when none opens; waiting is bounded."""

    def __init__(
        self, port: int, timeout: float, say: Callable[[str], None], scope: str | None = None
    ) -> None:
        self.port, self.timeout, self.say = port, timeout, say
        #: Scopes asked for besides the server's (one a run was refused for: a step-up).
        self.scope = scope
        self._result: asyncio.Future[AuthorizationCodeResult] | None = None
        self._server: asyncio.Server | None = None

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self.port}{CALLBACK_PATH}"

    async def start(self) -> None:
        """Listen on the port (a free one for 0), before the redirect URI is needed."""
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)
        self.port = self._server.sockets[0].getsockname()[1]

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None

    async def redirect(self, url: str) -> None:
        self._result = asyncio.get_running_loop().create_future()
        if self.scope:  # the SDK asks for the scopes of the 401; a step-up needs more
            parts = urlsplit(url)
            query = parse_qs(parts.query)
            query["scope"] = [union_scopes(query.get("scope", [""])[0], self.scope) or ""]
            url = urlunsplit(parts._replace(query=urlencode(query, doseq=True, quote_via=quote)))
        try:  # in a thread: a browser command may wait, and the redirect comes to this loop
            opened = await asyncio.to_thread(webbrowser.open, url)
        except Exception:  # no browser: the URL is printed instead
            opened = False
        if opened:
            self.say(f"A browser was opened to log in; if nothing appears, open:\n  {url}")
        else:
            self.say(f"Open this URL in a browser to log in:\n  {url}")

    async def callback(self) -> AuthorizationCodeResult:
        if self._result is None:
            raise LoginRequiredError("no authorization was started")
        try:
            return await asyncio.wait_for(self._result, self.timeout)
        except TimeoutError:
            raise LoginRequiredError(
                f"no login within {self.timeout:g} s (the browser never came back to "
                f"{self.redirect_uri})"
            ) from None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = await asyncio.wait_for(reader.readline(), 10)
            parts = line.decode("latin-1").split(" ")
            target = urlsplit(parts[1]) if len(parts) > 1 else None
            query = parse_qs(target.query) if target else {}
            done = target is not None and target.path == CALLBACK_PATH
            if done and self._result is not None and not self._result.done():
                if "code" in query:
                    self._result.set_result(
                        AuthorizationCodeResult(
                            code=query["code"][0],
                            state=query.get("state", [None])[0],
                            iss=query.get("iss", [None])[0],
                        )
                    )
                else:
                    error = query.get("error", ["no code"])[0][:200]
                    self._result.set_exception(LoginRequiredError(f"login refused: {error}"))
            body = b"Logged in: you can close this window." if done else b"Not found."
            status = b"200 OK" if done else b"404 Not Found"
            writer.write(
                b"HTTP/1.1 "
                + status
                + b"\r\nContent-Type: text/plain\r\nContent-Length: "
                + str(len(body)).encode()
                + b"\r\nConnection: close\r\n\r\n"
                + body
            )
            await writer.drain()
        except (OSError, TimeoutError, IndexError):
            pass
        finally:
            writer.close()


def _refuse_login(server: str, store: TokenStore) -> Callable[[str], Any]:
    async def redirect(url: str) -> None:
        scope = parse_qs(urlsplit(url).query).get("scope", [None])[0]
        had = await store.get_tokens()
        given = set((had.scope or "").split()) if had is not None else set()
        if had is not None and scope and not set(scope.split()) <= given:
            store.want_scope(scope)
            store.refused = LoginRequiredError(
                f"MCP server {server!r} needs more access (scope {scope[:200]!r}): run "
                f"`agentframe mcp login {server}`"
            )
        else:
            why = " (its token was refused)" if had is not None else ""
            store.refused = LoginRequiredError(
                f"MCP server {server!r} needs a login{why}: run `agentframe mcp login {server}`"
            )
        raise store.refused

    return redirect


async def _no_callback() -> AuthorizationCodeResult:
    raise LoginRequiredError("no login in a run")


def make_auth(
    server: str,
    url: str,
    settings: OAuthSettings | None,
    store: TokenStore,
    login: LoginFlow | None = None,
) -> httpx2.Auth:
    """The httpx2 auth of an HTTP server: client credentials, or the authorization code flow
    (whose browser step only `login` may take)."""
    settings = settings or OAuthSettings()
    scope = " ".join(settings.scopes) or None
    if settings.grant == "client_credentials":
        key = settings.secret(server, "private_key_env")
        if settings.client_id is not None and key is not None:
            jwt = SignedJWTParameters(
                issuer=settings.client_id,
                subject=settings.client_id,
                signing_algorithm=settings.signing_algorithm,
                signing_key=key,
            )
            return PrivateKeyJWTOAuthProvider(
                server_url=url,
                storage=store,
                client_id=settings.client_id,
                assertion_provider=jwt.create_assertion_provider(),
                scope=scope,
            )
        secret = settings.secret(server)
        if settings.client_id is None or secret is None:
            raise AgentframeError(
                f"mcpServers.{server}.auth: client_credentials needs client_id and "
                "client_secret_env (or private_key_env)"
            )
        method = settings.token_endpoint_auth_method
        return ClientCredentialsOAuthProvider(
            server_url=url,
            storage=store,
            client_id=settings.client_id,
            client_secret=secret,
            token_endpoint_auth_method=(
                method
                if method in ("client_secret_basic", "client_secret_post")
                else "client_secret_basic"
            ),
            scope=scope,
        )
    if login is not None:
        redirect_uri = login.redirect_uri
    else:
        port = store.redirect_port() or settings.redirect_port or _free_port()
        redirect_uri = f"http://127.0.0.1:{port}{CALLBACK_PATH}"
    if settings.client_id is not None:
        secret = settings.secret(server)
        method = settings.token_endpoint_auth_method or (
            "client_secret_basic" if secret else "none"
        )
        store.preregistered = OAuthClientInformationFull(
            client_id=settings.client_id,
            client_secret=secret,
            redirect_uris=[AnyUrl(redirect_uri)],
            token_endpoint_auth_method=method,
        )
    return _Provider(
        server_url=url,
        client_metadata=OAuthClientMetadata(
            client_name="agentframe",
            redirect_uris=[AnyUrl(redirect_uri)],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            scope=scope,
        ),
        storage=store,
        redirect_handler=login.redirect if login else _refuse_login(server, store),
        callback_handler=login.callback if login else _no_callback,
        client_metadata_url=settings.client_metadata_url,
    )


def union_scopes(a: str | None, b: str | None) -> str | None:
    words = list(dict.fromkeys((a or "").split() + (b or "").split()))
    return " ".join(words) or None


class _Provider(OAuthClientProvider):
    """The SDK keeps a token's expiry in memory only; restored from the file, an expired
    token is refreshed before it is sent (after a 401 the SDK would start a new login)."""

    async def _initialize(self) -> None:
        await super()._initialize()
        storage = self.context.storage
        if isinstance(storage, TokenStore):
            self.context.token_expiry_time = storage.expires_at()
