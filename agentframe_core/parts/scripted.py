"""The `scripted` adapter: replies read from a list, so a whole stack runs with no model.

    adapter:
      use: scripted
      replies:
        - tool_calls: [{name: add, arguments: {a: 2, b: 3}}]
        - "The sum is 5."

Each reply is a string (plain text) or a mapping with `content` and/or `tool_calls`.
Every request is kept in `requests`, for tests to inspect.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PositiveInt

from ..contract.errors import AgentframeError
from ..contract.llm import Capabilities, Completion, CompletionRequest, Usage
from ..contract.model import ToolCall, new_id

__all__ = [
    "ScriptExhaustedError",
    "ScriptedAdapter",
    "ScriptedCall",
    "ScriptedOptions",
    "ScriptedReply",
]


class ScriptExhaustedError(AgentframeError):
    pass


class ScriptedCall(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    id: str | None = None


class ScriptedReply(BaseModel):
    model_config = ConfigDict(extra="forbid")
    content: str = ""
    tool_calls: list[ScriptedCall] = Field(default_factory=list)
    usage: dict[str, int] = Field(default_factory=dict)
    #: Seconds to wait before answering (to test cancellation and timeouts).
    delay: float = 0.0


class ScriptedOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    replies: list[str | ScriptedReply] = Field(default_factory=list)
    #: Start over at the first reply when the list is used up (instead of failing).
    cycle: bool = False
    native_tools: bool = True
    json_schema: bool = False
    #: Cut each reply's text after this many words, as a model stops at its token limit
    #: (finish reason "length"); None: never.
    max_tokens: PositiveInt | None = None


class ScriptedAdapter:
    def __init__(
        self,
        replies: list[str | ScriptedReply | dict[str, Any]] | None = None,
        *,
        cycle: bool = False,
        native_tools: bool = True,
        json_schema: bool = False,
        max_tokens: int | None = None,
    ) -> None:
        self.replies = [
            r if isinstance(r, str | ScriptedReply) else ScriptedReply.model_validate(r)
            for r in replies or []
        ]
        self.cycle = cycle
        self.max_tokens = max_tokens
        self.requests: list[CompletionRequest] = []
        self._next = 0
        self._capabilities = Capabilities(native_tools=native_tools, json_schema=json_schema)

    @classmethod
    def from_options(cls, options: ScriptedOptions) -> ScriptedAdapter:
        return cls(
            list(options.replies),
            cycle=options.cycle,
            native_tools=options.native_tools,
            json_schema=options.json_schema,
            max_tokens=options.max_tokens,
        )

    @property
    def capabilities(self) -> Capabilities:
        return self._capabilities

    def _take(self) -> ScriptedReply:
        if self._next >= len(self.replies):
            if not (self.cycle and self.replies):
                raise ScriptExhaustedError(
                    f"the scripted adapter has no reply left (it had {len(self.replies)})"
                )
            self._next = 0
        reply = self.replies[self._next]
        self._next += 1
        return ScriptedReply(content=reply) if isinstance(reply, str) else reply

    async def complete(self, request: CompletionRequest) -> Completion:
        self.requests.append(request)
        reply = self._take()
        if reply.delay:
            await asyncio.sleep(reply.delay)
        calls = tuple(ToolCall(c.id or new_id(), c.name, c.arguments) for c in reply.tool_calls)
        usage = Usage(**reply.usage) if reply.usage else Usage()
        words = reply.content.split(" ")
        if self.max_tokens is not None and len(words) > self.max_tokens:
            cut = " ".join(words[: self.max_tokens])
            usage = Usage(usage.prompt_tokens, self.max_tokens)
            return Completion(cut, (), usage, "length")
        return Completion(reply.content, calls, usage, "tool_calls" if calls else "stop")

    async def stream(self, request: CompletionRequest) -> AsyncIterator[str | Completion]:
        completion = await self.complete(request)
        words = completion.content.split(" ")
        for i, word in enumerate(words):
            if word or i:
                yield word if i == 0 else " " + word
        yield completion
