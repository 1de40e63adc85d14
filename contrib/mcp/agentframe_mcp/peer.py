"""What agentframe answers when a server asks something of it: elicitation, sampling, roots;
and the progress it reports. One per server connection.

A server's request reaches the run whose tool call on that server is in flight (the latest,
when several are): its `RunContext` asks the person and holds the model. Progress
notifications of a call become `mcp_progress` run events.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mcp import types
from mcp.client.session import ClientRequestContext
from pydantic import FileUrl

from agentframe_core import LLMAdapter, RunContext

from .elicitation import ElicitationPolicy, answer_elicitation
from .sampling import SamplingCounter, SamplingOptions, answer_sampling

__all__ = ["Peer"]


class Peer:
    def __init__(
        self,
        server: str,
        elicitation: ElicitationPolicy,
        sampling: SamplingOptions,
        roots: list[Path],
        model: LLMAdapter | None = None,
    ) -> None:
        """`model`: what answers sampling (None: the stack's adapter of the run asking)."""
        self.server, self.elicitation, self.sampling = server, elicitation, sampling
        self.roots, self.model = roots, model
        self.counter = SamplingCounter()
        self._calls: dict[int, RunContext] = {}
        self._ids = itertools.count()

    @contextlib.contextmanager
    def calling(self, tool: str, ctx: RunContext | None) -> Iterator[Any]:
        """While a call runs: its context answers the server's requests; yields its
        progress callback (None without a context)."""
        if ctx is None:
            yield None
            return
        call = next(self._ids)
        self._calls[call] = ctx
        server = self.server

        async def progress(value: float, total: float | None, message: str | None) -> None:
            ctx.emit(
                "mcp_progress",
                {
                    "server": server,
                    "tool": tool,
                    "progress": value,
                    "total": total,
                    "message": (message or "")[:500],
                },
            )

        try:
            yield progress
        finally:
            del self._calls[call]
            self.counter.end_call(call)

    def current(self) -> tuple[int, RunContext] | None:
        if not self._calls:
            return None
        call = max(self._calls)
        return call, self._calls[call]

    def callbacks(self) -> dict[str, Any]:
        """The `ClientSession` callbacks: each one is a capability the client declares
        (sampling not at all when the policy denies it; roots only when there are any)."""
        found: dict[str, Any] = {"elicitation_callback": self._elicit}
        if self.sampling.policy != "deny":
            found["sampling_callback"] = self._sample
        if self.roots:
            found["list_roots_callback"] = self._roots
        return found

    async def _elicit(
        self, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        current = self.current()
        return await answer_elicitation(
            self.server, self.elicitation, current[1] if current else None, params
        )

    async def _sample(
        self, context: ClientRequestContext, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult | types.ErrorData:
        return await answer_sampling(
            self.server, self.sampling, self.counter, self.current(), params, self.model
        )

    async def _roots(self, context: ClientRequestContext) -> types.ListRootsResult:
        return types.ListRootsResult(
            roots=[types.Root(uri=FileUrl(root.as_uri()), name=root.name) for root in self.roots]
        )
