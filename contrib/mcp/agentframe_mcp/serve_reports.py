"""What `mcp serve` tells its client while an agent runs: progress and log messages.

A `tools/call` runs a whole agent, which may take minutes; the client hears of each turn and
each tool call as `notifications/progress` (when it sent a progress token) and as
`notifications/message` at or above the level it chose with `logging/setLevel` (`info`
until it does). agentframe's own log records made while the call runs (a tool failing, an
MCP server's stderr) reach it too, masked as every log line is. One task per call sends
them in order; a flood is bounded by the queue, and what it drops is counted in the log.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import threading
import warnings
import weakref
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any, get_args

from mcp import types
from mcp.server.session import ServerSession
from mcp.shared.exceptions import MCPDeprecationWarning

from agentframe_core import (
    Capabilities,
    Completion,
    CompletionRequest,
    LLMAdapter,
    RedactingFormatter,
    Stack,
    ToolCallRecord,
)

__all__ = ["CallReport", "LogLevels", "install_log_bridge", "reporting_stack"]

log = logging.getLogger("agentframe.mcp.serve")

LEVELS: tuple[types.LoggingLevel, ...] = get_args(types.LoggingLevel)
DEFAULT_LEVEL: types.LoggingLevel = "info"
MAX_QUEUED = 1000
MAX_LOG_CHARS = 4000
_FROM_PYTHON: dict[int, types.LoggingLevel] = {
    logging.DEBUG: "debug",
    logging.INFO: "info",
    logging.WARNING: "warning",
    logging.ERROR: "error",
    logging.CRITICAL: "critical",
}

_current: contextvars.ContextVar[CallReport | None] = contextvars.ContextVar(
    "agentframe_mcp_call_report", default=None
)


class LogLevels:
    """The level each client connection asked for (`logging/setLevel`)."""

    def __init__(self) -> None:
        self._levels: weakref.WeakKeyDictionary[object, types.LoggingLevel] = (
            weakref.WeakKeyDictionary()
        )

    def set(self, session: ServerSession, level: types.LoggingLevel) -> None:
        self._levels[_connection(session)] = level

    def minimum(self, session: ServerSession) -> types.LoggingLevel:
        return self._levels.get(_connection(session), DEFAULT_LEVEL)


def _connection(session: ServerSession) -> object:
    """The connection a per-request session belongs to (the SDK makes one session object
    per request; the level is the connection's)."""
    return getattr(session, "_connection", session)


class CallReport:
    """The notifications of one `tools/call`, queued by the run's callbacks and sent by one
    task, in order, on the call's own stream."""

    def __init__(
        self,
        session: ServerSession,
        request_id: types.RequestId | None,
        minimum: types.LoggingLevel,
        agent: str,
    ) -> None:
        self.session, self.request_id, self.agent = session, request_id, agent
        self._floor = LEVELS.index(minimum)
        self._queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue(MAX_QUEUED)
        self._loop = asyncio.get_running_loop()
        self._thread = threading.get_ident()
        self._progress = 0
        self._dropped = 0
        self._open = False

    # -- what the run reports (synchronous: called from the loop's callbacks) ------------------

    def turn(self, number: int) -> None:
        self.progress(f"turn {number}: calling the model")
        self.log("debug", f"{self.agent}: turn {number}")

    def tool(self, record: ToolCallRecord) -> None:
        state = "failed" if record.result.is_error else "done"
        self.progress(f"tool {record.call.name}: {state} ({record.seconds:.2f} s)")
        self.log("info", f"{self.agent}: tool {record.call.name} {state}")

    def progress(self, message: str) -> None:
        self._progress += 1
        self._put(("progress", (self._progress, message)))

    def log(self, level: types.LoggingLevel, text: str) -> None:
        if LEVELS.index(level) >= self._floor:
            self._put(("log", (level, text[:MAX_LOG_CHARS])))

    def _put(self, item: tuple[str, Any]) -> None:
        if not self._open:
            return
        if threading.get_ident() != self._thread:
            self._loop.call_soon_threadsafe(self._put, item)
            return
        try:
            self._queue.put_nowait(item)
        except asyncio.QueueFull:
            self._dropped += 1

    # -- sending -------------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def sending(self) -> AsyncIterator[CallReport]:
        """While the run lasts: queue reports (this call's log records included), send them;
        at the end, send what is still queued."""
        self._open = True
        token = _current.set(self)
        sender = asyncio.create_task(self._send_all())
        try:
            yield self
        finally:
            self._open = False
            _current.reset(token)
            with contextlib.suppress(asyncio.QueueFull):
                self._queue.put_nowait(("end", None))
            try:
                await asyncio.wait_for(sender, 2.0)
            except TimeoutError:
                log.warning("the last notifications of a call were not sent within 2 s")
            finally:
                sender.cancel()
            if self._dropped:
                log.warning("%d progress or log notification(s) of one call dropped", self._dropped)

    async def _send_all(self) -> None:
        while True:
            kind, data = await self._queue.get()
            if kind == "end":
                return
            try:
                if kind == "progress":
                    await self.session.report_progress(data[0], None, data[1])
                else:
                    await self._send_log(*data)
            except Exception as err:  # a client gone away must not fail the run
                log.debug("a notification could not be sent: %s", err)

    async def _send_log(self, level: types.LoggingLevel, text: str) -> None:
        with warnings.catch_warnings():  # deprecated only in the 2026-07-28 revision
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            sent = self.session.send_log_message(
                level, text, logger="agentframe", related_request_id=self.request_id
            )
        await sent


class _LogBridge(logging.Handler):
    """agentframe's log records, to the client of the call they were made in."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.setFormatter(RedactingFormatter("%(name)s: %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        report = _current.get()
        if report is None or record.name == log.name:
            return
        level = _FROM_PYTHON.get(record.levelno, "warning" if record.levelno > 20 else "debug")
        try:
            report.log(level, self.format(record))
        except Exception:
            self.handleError(record)


_bridge = _LogBridge()


def install_log_bridge() -> None:
    """Send agentframe's log records to the client of the call they belong to (once)."""
    logger = logging.getLogger("agentframe")
    if _bridge not in logger.handlers:
        logger.addHandler(_bridge)


class _TurnReporting:
    """The stack's adapter, telling the call's report of each model call (a turn)."""

    def __init__(self, adapter: LLMAdapter, report: CallReport) -> None:
        self.adapter, self.report, self.turns = adapter, report, 0

    @property
    def capabilities(self) -> Capabilities:
        return self.adapter.capabilities

    def _started(self) -> None:
        self.turns += 1
        self.report.turn(self.turns)

    async def complete(self, request: CompletionRequest) -> Completion:
        self._started()
        return await self.adapter.complete(request)

    def stream(self, request: CompletionRequest) -> AsyncIterator[str | Completion]:
        self._started()
        return self.adapter.stream(request)


def reporting_stack(stack: Stack, report: CallReport) -> Stack:
    """The stack for one call: the same parts, each model call reported (never closed: the
    parts are the server's)."""
    return replace(stack, adapter=_TurnReporting(stack.adapter, report))
