"""A server's `tools/list` replies, screened before the SDK parses them.

The SDK validates a whole listing at once: one tool without `"type": "object"` fails the
server, and a page of 600,000 tools is turned into 600,000 models before anyone counts them.
Between the transport and the `ClientSession`, this wrapper sees each reply to a
`tools/list` request (their ids are taken from the requests going out), leaves out the tools
the SDK would refuse (a warning names each) and refuses a page longer than `max_tools`.
"""

from __future__ import annotations

import logging
from types import TracebackType
from typing import Any, Self

from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCRequest, JSONRPCResponse

from agentframe_core import AgentframeError

__all__ = ["ListingScreen", "TooManyToolsError"]

log = logging.getLogger("agentframe.mcp")


class TooManyToolsError(AgentframeError):
    """A server lists more tools than `max_tools`: it is left out."""


class ListingScreen:
    """The read and write streams of one connection, with its `tools/list` replies screened."""

    def __init__(self, server: str, max_tools: int, read: Any, write: Any) -> None:
        self.server, self.max_tools = server, max_tools
        self.read, self.write = _Read(self, read), _Write(self, write)
        self._pending: set[str | int] = set()
        self.refused: str | None = None

    def too_many(self) -> TooManyToolsError:
        return TooManyToolsError(
            f"MCP server {self.server!r} lists more than {self.max_tools} tools (max_tools); "
            "it is left out"
        )

    def check(self) -> None:
        """Raise what the last page showed: more tools than allowed."""
        refused, self.refused = self.refused, None
        if refused is not None:
            raise self.too_many()

    def sent(self, item: SessionMessage) -> None:
        message = item.message
        if isinstance(message, JSONRPCRequest) and message.method == "tools/list":
            self._pending.add(message.id)

    def received(self, item: Any) -> Any:
        message = getattr(item, "message", None)
        if not isinstance(message, JSONRPCResponse) or message.id not in self._pending:
            return item
        self._pending.discard(message.id)
        tools = message.result.get("tools")
        if not isinstance(tools, list):
            return item  # the SDK says what is wrong with it
        if len(tools) > self.max_tools:
            self.refused = "too many"
            message.result["tools"] = []
        else:
            message.result["tools"] = [t for t in tools if self._acceptable(t)]
        return item

    def _acceptable(self, tool: Any) -> bool:
        if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
            log.warning("MCP server %s: a tool without a name left out", self.server)
            return False
        schema = tool.get("inputSchema")
        if not isinstance(schema, dict) or schema.get("type") != "object":
            log.warning(
                'MCP tool %s/%s left out: its input schema has no "type": "object" at its root',
                self.server,
                tool["name"][:100],
            )
            return False
        return True


class _Screened:
    """A stream of the SDK's with every message passing the screen; the rest is the inner
    stream's."""

    def __init__(self, screen: ListingScreen, inner: Any) -> None:
        self._screen, self._inner = screen, inner

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> Self:
        await self._inner.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        result: bool | None = await self._inner.__aexit__(exc_type, exc_val, exc_tb)
        return result


class _Read(_Screened):
    @property
    def last_context(self) -> Any:
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Any:
        return self._screen.received(await self._inner.receive())

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> Any:
        return self._screen.received(await self._inner.__anext__())


class _Write(_Screened):
    async def send(self, item: SessionMessage, /) -> None:
        self._screen.sent(item)
        await self._inner.send(item)
