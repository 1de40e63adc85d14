"""`load_message(id)`: the meta tool that reads a stubbed (or compacted) entry whole.

A tool dispatcher (`tools: [{use: load_message}]`), because the loop takes its tools from
the stack's dispatchers only; the shaper mentions the tool in its stubs only when it is
there, so a model is never told to call a tool it does not have.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PositiveInt

from agentframe_core import Entry, RunContext, Tool, ToolCall, ToolResult

__all__ = ["LoadMessageOptions", "LoadMessageTools"]

NAME = "load_message"


class LoadMessageOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    max_chars: PositiveInt = Field(
        default=4000, description="The most characters one call returns; `offset` pages on."
    )


class LoadMessageTools:
    #: Read by the shaper: stubs may point at `load_message`.
    loads_messages = True

    def __init__(self, options: LoadMessageOptions | None = None) -> None:
        self.options = options or LoadMessageOptions()

    async def tools(self, ctx: RunContext) -> list[Tool]:
        return [
            Tool(
                name=NAME,
                description="Read the whole text of an earlier message that is shown "
                "shortened (its id is in the stub).",
                parameters={
                    "type": "object",
                    "properties": {
                        "id": {"type": "string", "maxLength": 200},
                        "offset": {"type": "integer", "minimum": 0},
                    },
                    "required": ["id"],
                    "additionalProperties": False,
                },
            )
        ]

    async def dispatch(self, call: ToolCall, ctx: RunContext) -> ToolResult:
        if call.name != NAME:
            return ToolResult(f"unknown tool {call.name!r}", is_error=True)
        wanted = str(call.arguments.get("id", ""))
        offset = call.arguments.get("offset", 0)
        if not isinstance(offset, int) or offset < 0:
            return ToolResult("offset must be a non-negative integer", is_error=True)
        entry = await _find(ctx, wanted)
        if entry is None:
            return ToolResult(f"no message with id {wanted!r} in this session", is_error=True)
        return ToolResult(self._page(entry.content, offset))

    def _page(self, text: str, offset: int) -> str:
        end = offset + self.options.max_chars
        page = text[offset:end]
        if end < len(text):
            page += (
                f"\n[{len(text) - end} more characters: call load_message again with offset {end}]"
            )
        return page


async def _find(ctx: RunContext, wanted: str) -> Entry | None:
    store = ctx.stack.store
    for entry in await store.context(ctx.session_id):
        if entry.id == wanted:
            return entry
    history: Any = getattr(store, "history", None)  # compacted entries, where the store keeps them
    if history is not None:
        for record in await history(ctx.session_id):
            if record.entry.id == wanted and not record.pending:
                found: Entry = record.entry
                return found
    return None
