"""One MCP server: started on demand, watched, restarted with backoff, closed in bounded time.

A dedicated task owns the transport and the `ClientSession` (anyio scopes must be left by the
task that entered them); callers talk to the session it publishes. A server that dies fails
its pending calls at once (its stdout closes) and is restarted by the next call that needs it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Callable
from enum import StrEnum
from typing import Any

import anyio
from mcp import ClientSession, MCPError, types
from mcp.client._probe import negotiate_auto
from mcp.client.stdio import get_default_environment
from mcp.client.subscriptions import ToolsListChanged, listen

from agentframe_core import AgentframeError, RunContext, ToolResult, redact_text

from . import depth
from .auth import LoginFlow, LoginRequiredError, TokenStore, make_auth
from .content import to_tool_result
from .http import MAX_REPLY, capped_client
from .offers import probe
from .options import HttpServer, McpOptions, StdioServer, expand, expand_headers
from .peer import Peer
from .rounds import resolved
from .schemas import kept_tools
from .screen import ListingScreen, TooManyToolsError
from .stdio import StdioProcess, open_stdio

__all__ = ["McpConnection", "ServerUnavailableError", "State"]

MAX_PAGES = 50  # of tools/list: a server that pages forever is cut off
EXIT_NOTE_WAIT = 0.3  # seconds to wait for a dead server's exit code, for the error message
MIN_SECRET = 4  # shorter env and header values are not masked in messages (they would garble them)


class State(StrEnum):
    IDLE = "idle"
    STARTING = "starting"
    READY = "ready"
    DEAD = "dead"  # it was running and stopped; the next call restarts it
    FAILED = "failed"  # it could not be started; retried after the backoff delay
    CLOSED = "closed"


class ServerUnavailableError(AgentframeError):
    """The server could not be started (or restarted); says why."""


Streams = tuple[Any, Any, StdioProcess | None]


class McpConnection:
    def __init__(
        self,
        name: str,
        config: StdioServer | HttpServer,
        options: McpOptions,
        on_tools_changed: Callable[[], None] | None = None,
        peer: Peer | None = None,
    ) -> None:
        self.name, self.config, self.options = name, config, options
        self.peer = peer or Peer(name, options.elicitation, options.sampling, [])
        self.login: LoginFlow | None = None  # set by `mcp login`: the browser step may run
        self._tokens: TokenStore | None = None  # an HTTP server's OAuth tokens
        self.state = State.IDLE
        self.error: str | None = None
        self.tools: list[types.Tool] = []
        self.offers: frozenset[str] = frozenset()  # "resources", "prompts": see offers.py
        self.stale = False  # the server said its tool list changed
        self.on_tools_changed = on_tools_changed
        self.log = logging.getLogger(f"agentframe.mcp.{name}")
        self._session: ClientSession | None = None
        self._process: StdioProcess | None = None
        self._runner: asyncio.Task[None] | None = None
        self._screen: ListingScreen | None = None
        self._secrets: list[str] = []  # env and header values, masked in every message
        self._stop = asyncio.Event()
        self._lock = asyncio.Lock()
        self._failures = 0
        self._failed_at = 0.0

    # -- lifecycle ---------------------------------------------------------------------------

    async def ensure(self, *, wait: bool = True) -> ClientSession:
        """The live session, starting the server if needed. A server that died or failed is
        started again after `restart.delay(n)` (n failures in a row); with `wait=False` an
        unexpired delay raises instead of sleeping."""
        async with self._lock:
            session = self._session
            if session is not None and self.state is State.READY:
                return session
            if self.state is State.CLOSED:
                raise ServerUnavailableError(f"MCP server {self.name!r} is closed")
            backoff = self.options.restart
            if self._failures > backoff.max_retries:
                raise ServerUnavailableError(
                    f"MCP server {self.name!r} gave up after {self._failures} failures in a "
                    f"row: {self.error}"
                )
            if self._failures:
                left = backoff.delay(self._failures) - (time.monotonic() - self._failed_at)
                if left > 0 and not wait:
                    raise ServerUnavailableError(
                        f"MCP server {self.name!r} is down ({self.error}); next try in {left:.1f} s"
                    )
                await asyncio.sleep(max(left, 0))
            return await self._start()

    async def _start(self) -> ClientSession:
        self.state, self._stop = State.STARTING, asyncio.Event()
        ready: asyncio.Future[ClientSession] = asyncio.get_running_loop().create_future()
        self._runner = asyncio.create_task(self._run(ready), name=f"mcp-{self.name}")
        try:
            return await asyncio.shield(ready)
        except ServerUnavailableError as err:
            self._failed(State.FAILED, str(err))
            raise

    def _failed(self, state: State, error: str) -> None:
        if self.state is State.CLOSED:
            return
        self.state, self.error = state, self._masked(error)
        self._failures += 1
        self._failed_at = time.monotonic()
        self._session = None

    async def _run(self, ready: asyncio.Future[ClientSession]) -> None:
        """Own the transport and the session until asked to stop or the server goes away."""
        phase = "start"
        try:
            async with self._open() as (read, write, process):
                self._process = process
                screen = self._screen = ListingScreen(
                    self.name, self.options.max_tools, read, write
                )
                async with ClientSession(
                    screen.read,
                    screen.write,
                    message_handler=self._on_message,
                    **self.peer.callbacks(),
                ) as session:
                    phase = "initialize"
                    login = self.login.timeout if self.login else 0  # a person, in a browser
                    with anyio.fail_after(self.options.startup_timeout + login):
                        if self.config.protocol == "auto":  # see options._Server.protocol
                            await negotiate_auto(session)
                        else:
                            await session.initialize()
                    phase = "tools/list"
                    self.tools = await self._list(session)
                    with anyio.fail_after(self.options.list_timeout):
                        self.offers = await probe(session)
                    self._session, self.state, self.error, self.stale = (
                        session,
                        State.READY,
                        None,
                        False,
                    )
                    ready.set_result(session)
                    phase = "running"
                    hearing = asyncio.create_task(self._hear_changes(session))
                    try:
                        await self._until_gone(process)
                    finally:
                        hearing.cancel()
                        with contextlib.suppress(asyncio.CancelledError):
                            await hearing
        except Exception as err:
            reason = self._describe(err, phase)
            if not ready.done():
                ready.set_exception(ServerUnavailableError(reason))
            elif self.state is not State.CLOSED:
                self.log.warning("MCP server %r stopped: %s", self.name, reason)
        finally:
            self._session = None
            if ready.done() and self.state is State.READY:
                self._failed(State.DEAD, self._exit_note() or "it stopped")
            if not ready.done():
                ready.set_exception(ServerUnavailableError(f"MCP server {self.name!r} stopped"))

    async def _hear_changes(self, session: ClientSession) -> None:
        """At 2026-07-28 a server says its tool list changed only on a `subscriptions/listen`
        stream the client opened: keep one open while the session lasts. A server that
        refuses it, or drops it, still works; its list is then read only at its start."""
        if self.config.protocol != "auto":
            return
        try:
            async with listen(session, tools_list_changed=True) as subscription:
                async for event in subscription:
                    if isinstance(event, ToolsListChanged):
                        self._tools_changed()
        except Exception as err:  # not a 2026-07-28 connection, or the stream failed
            self.log.info(
                "MCP server %r: no subscriptions/listen: %s", self.name, self._masked(str(err))
            )

    async def _until_gone(self, process: StdioProcess | None) -> None:
        waits = [asyncio.create_task(self._stop.wait())]
        if process is not None:
            waits.append(asyncio.create_task(process.gone.wait()))
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in waits:
                task.cancel()

    def _masked(self, text: str) -> str:
        """Every message this connection makes, as the kernel masks output: URL credentials,
        tokens, and the server's own env and header values (a library may quote them)."""
        return redact_text(text, known=self._secrets)

    def _describe(self, err: BaseException, phase: str) -> str:
        return self._masked(self._reason(err, phase))

    def _reason(self, err: BaseException, phase: str) -> str:
        err = _leaf(err)
        if isinstance(err, TooManyToolsError | LoginRequiredError):
            return str(err)
        refused = self._tokens.refused if self._tokens else None
        if refused is not None:
            return str(refused)
        if isinstance(err, TimeoutError):
            options = self.options
            if phase == "initialize":
                limit = options.startup_timeout
                return f"MCP server {self.name!r} did not answer initialize within {limit:g} s"
            return (
                f"MCP server {self.name!r} did not finish tools/list (the listing and its schema "
                f"checks) within {options.list_timeout:g} s"
            )
        detail = str(err) or type(err).__name__
        if isinstance(err, OSError) and phase == "start":
            command = getattr(self.config, "command", "?")
            return f"MCP server {self.name!r} could not be started ({command}): {detail}"
        note = self._exit_note()
        return f"MCP server {self.name!r} failed during {phase}: {detail}" + (
            f" ({note})" if note else ""
        )

    def _exit_note(self) -> str:
        process = self._process
        if process is not None and process.cut:
            return process.cut
        if process is None or process.returncode is None:
            return ""
        tail = f"; stderr: {process.stderr_tail[-1]}" if process.stderr_tail else ""
        return f"exit code {process.returncode}{tail}"

    @contextlib.asynccontextmanager
    async def _open(self) -> AsyncIterator[Streams]:
        config, where = self.config, f"mcpServers.{self.name}"
        if isinstance(config, StdioServer):
            expanded = expand(config.env, f"{where}.env")
            self._secrets = [v for v in expanded.values() if len(v) >= MIN_SECRET]
            env = get_default_environment() | expanded | {depth.ENV: str(depth.current() + 1)}
            async with open_stdio(
                self.name,
                config.command,
                config.args,
                env,
                config.cwd,
                grace=self.options.close_timeout,
            ) as (read, write, process):
                yield read, write, process
            return
        headers = expand_headers(config.headers, f"{where}.headers")
        self._secrets = [v for v in headers.values() if len(v) >= MIN_SECRET]
        # A server given its own Authorization header is not also sent OAuth tokens.
        given = any(name.lower() == "authorization" for name in headers)
        self._tokens = None if given else TokenStore(self.name, config.url)
        auth = (
            None
            if self._tokens is None
            else make_auth(self.name, config.url, config.auth, self._tokens, self.login)
        )
        if config.type == "sse":
            from mcp.client.sse import sse_client

            async with sse_client(
                config.url, headers=headers, httpx_client_factory=capped_client, auth=auth
            ) as (read, write):
                yield read, write, None
            return
        from mcp.client.streamable_http import streamable_http_client

        client = capped_client(headers, auth=auth)
        async with (
            client,
            streamable_http_client(
                config.url, http_client=client, max_sse_event_size=MAX_REPLY
            ) as streams,
        ):
            yield streams[0], streams[1], None

    async def _list(self, session: ClientSession) -> list[types.Tool]:
        """Every page, at most `max_tools` in all, then the tools whose schemas pass: all of
        it within `list_timeout`."""
        tools: list[types.Tool] = []
        cursor: str | None = None
        screen = self._screen
        assert screen is not None
        with anyio.fail_after(self.options.list_timeout):
            for _ in range(MAX_PAGES):
                params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
                page = await session.list_tools(params=params)
                screen.check()
                tools.extend(page.tools)
                if len(tools) > self.options.max_tools:
                    raise screen.too_many()
                cursor = page.next_cursor
                if not cursor:
                    break
            return await kept_tools(self.name, tools)

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, Exception):
            self.log.warning("transport error: %s", self._masked(str(message)))
        elif isinstance(message, types.ToolListChangedNotification):
            self._tools_changed()

    def _tools_changed(self) -> None:
        self.stale = True
        if self.on_tools_changed is not None:
            self.on_tools_changed()

    async def refresh(self) -> None:
        """Read the tool list again (after `notifications/tools/list_changed`)."""
        session = self._session
        if session is None:
            return
        self.stale = False
        try:
            self.tools = await self._list(session)
        except (TimeoutError, MCPError, TooManyToolsError) as err:
            self.stale = True
            self.log.warning(
                "MCP server %r: tools/list failed: %s", self.name, self._masked(str(err))
            )

    async def aclose(self) -> None:
        """Stop the server: never longer than `close_timeout` plus a little, even if it hangs."""
        self.state = State.CLOSED
        self._stop.set()
        runner = self._runner
        if runner is None or runner.done():
            return
        with contextlib.suppress(TimeoutError, asyncio.CancelledError, Exception):
            await asyncio.wait_for(asyncio.shield(runner), self.options.close_timeout + 0.3)
        if not runner.done():
            runner.cancel()
            with contextlib.suppress(TimeoutError, asyncio.CancelledError, Exception):
                await asyncio.wait_for(runner, 0.2)
        if self._process is not None and self._process.returncode is None:
            self._process.kill_group()

    # -- calls -------------------------------------------------------------------------------

    async def call(
        self, tool: str, arguments: dict[str, Any], ctx: RunContext | None = None
    ) -> ToolResult:
        try:
            session = await self.ensure()
        except ServerUnavailableError as err:
            return ToolResult(str(err), True, meta={"exception": "unavailable"})
        try:
            with self.peer.calling(tool, ctx) as progress:

                async def send(
                    answers: types.InputResponses | None, state: str | None
                ) -> types.CallToolResult | types.InputRequiredResult | types.Result:
                    return await session.call_tool(
                        tool,
                        arguments,
                        read_timeout_seconds=self.options.call_timeout,
                        progress_callback=progress,
                        input_responses=answers,
                        request_state=state,
                        meta=depth.request_meta(),
                        allow_input_required=True,
                    )

                result = await resolved(session, send)
        except MCPError as err:
            return await self.call_failed(tool, err)
        except Exception as err:  # a reply the SDK could not parse, say
            return ToolResult(
                self._masked(
                    f"MCP server {self.name!r}: {tool} failed: {type(err).__name__}: {err}"
                ),
                True,
                meta={"exception": type(err).__name__},
            )
        self._failures = 0
        if isinstance(result, types.CallToolResult):
            return to_tool_result(result)
        return ToolResult(f"MCP server {self.name!r} sent an unexpected result", True)

    async def call_failed(self, tool: str, err: MCPError) -> ToolResult:
        """The result of a request that failed: a refused login, a server that died (it is
        restarted on the next call), a timeout, or the server's own error."""
        refused = self._tokens.refused if self._tokens else None
        if refused is not None:
            self._stop.set()
            if self.state is State.READY:
                self._failed(State.DEAD, str(refused))
            return ToolResult(str(refused), True, meta={"exception": "login_required"})
        process = self._process
        gone = process is not None and process.gone.is_set()
        if err.code == types.CONNECTION_CLOSED or gone:
            if process is not None:  # its stdout closed first: give the exit a moment to land
                await process.wait_exit(EXIT_NOTE_WAIT)
            self._stop.set()
            if self.state is State.READY:
                self._failed(State.DEAD, self._exit_note() or "connection closed")
            return ToolResult(
                f"MCP server {self.name!r} died during the call to {tool} ({self.error}); "
                "it is restarted on the next call",
                True,
                meta={"exception": "server_died"},
            )
        if err.code == types.REQUEST_TIMEOUT:
            return ToolResult(
                f"MCP server {self.name!r}: {tool} timed out after {self.options.call_timeout:g} s",
                True,
                meta={"exception": "timeout"},
            )
        return ToolResult(self._masked(f"MCP server {self.name!r}: {tool}: {err.message}"), True)

    def status(self) -> dict[str, Any]:
        return {"server": self.name, "state": self.state.value, "error": self.error}

    @property
    def process(self) -> StdioProcess | None:
        return self._process

    @property
    def session(self) -> ClientSession | None:
        """The live session (None while the server is not running)."""
        return self._session


def _leaf(err: BaseException) -> BaseException:
    """The error inside task-group wrappers (anyio raises groups of one)."""
    while isinstance(err, BaseExceptionGroup) and err.exceptions:
        inner = [e for e in err.exceptions if not isinstance(e, asyncio.CancelledError)]
        err = (inner or list(err.exceptions))[0]
    return err
