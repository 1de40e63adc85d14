"""`tools: [{use: memory-bm25}]`: remember, forget, recall. They go through the loop's tool
path like any other tool, so allow and deny lists apply, and plan mode refuses the two that
write (`writes=True`)."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from functools import cached_property
from typing import Any

from agentframe_core import RunContext, Tool, ToolCall, ToolResult

from .bank import MemoryBank, UnknownMemoryError
from .budget import render
from .files import BadMemoryFile
from .options import MemoryOptions
from .retriever import open_bank

__all__ = ["MemoryTools"]

_TEXT = {"type": "string", "minLength": 1}
#: Saved memories up to which `forget`'s id is an enum of them.
MAX_ENUM = 64


def _forget_parameters(memory_id: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"id": memory_id},
        "required": ["id"],
        "additionalProperties": False,
    }


TOOLS = [
    Tool(
        name="remember",
        description="Save a fact for later sessions (a near-duplicate updates the old memory).",
        parameters={
            "type": "object",
            "properties": {
                "title": {**_TEXT, "maxLength": 200},
                "content": {**_TEXT, "maxLength": 20_000},
                "category": {"type": "string", "maxLength": 64, "default": "general"},
                "tags": {
                    "type": "array",
                    "items": {"type": "string", "maxLength": 64},
                    "maxItems": 20,
                },
            },
            "required": ["title", "content"],
            "additionalProperties": False,
        },
        writes=True,
    ),
    Tool(
        name="forget",
        description="Delete a saved memory by its id (category/name).",
        parameters=_forget_parameters({**_TEXT, "maxLength": 200}),
        writes=True,
    ),
    Tool(
        name="recall",
        description="Search saved memories; returns the best matches with their ids.",
        parameters={
            "type": "object",
            "properties": {"query": {**_TEXT, "maxLength": 2_000}},
            "required": ["query"],
            "additionalProperties": False,
        },
    ),
]


class MemoryTools:
    def __init__(self, options: MemoryOptions) -> None:
        self.options = options

    @cached_property
    def bank(self) -> MemoryBank:
        return open_bank(self.options)

    async def tools(self, ctx: RunContext) -> list[Tool]:
        """The three tools; `forget`'s id is an enum of the saved memories while there are at
        most `MAX_ENUM` (a small model given a free string invents ids)."""
        ids = await asyncio.to_thread(self._ids)
        if not ids or len(ids) > MAX_ENUM:
            return list(TOOLS)
        forget = replace(TOOLS[1], parameters=_forget_parameters({"type": "string", "enum": ids}))
        return [TOOLS[0], forget, TOOLS[2]]

    def _ids(self) -> list[str]:
        return [f"{path.parent.name}/{path.stem}" for path in self.bank.files()]

    async def dispatch(self, call: ToolCall, ctx: RunContext) -> ToolResult:
        try:
            return await asyncio.to_thread(self._run, call.name, call.arguments)
        except (UnknownMemoryError, BadMemoryFile) as err:
            return ToolResult(str(err.args[0] if err.args else err), is_error=True)

    def _run(self, name: str, args: dict[str, Any]) -> ToolResult:
        bank = self.bank
        if name == "remember":
            memory, new = bank.remember(
                args["title"],
                args["content"],
                args.get("category") or "general",
                tuple(args.get("tags") or ()),
            )
            verb = "saved" if new else "updated (it was a near-duplicate)"
            return ToolResult(f"{verb}: {memory.id}", meta={"memory_id": memory.id})
        if name == "forget":
            memory = bank.forget(args["id"])
            return ToolResult(f"forgotten: {memory.id} ({memory.title})")
        if name == "recall":
            found = []
            for memory_id, score in bank.search(args["query"], self.options.candidates):
                memory = bank.get(memory_id)
                found.append(
                    {"id": memory_id, "score": round(score, 3), "text": render(memory)[:1500]}
                )
            return ToolResult(
                json.dumps(found, ensure_ascii=False) if found else "no memory matches"
            )
        return ToolResult(f"unknown tool {name!r}", is_error=True)

    async def aclose(self) -> None:
        if "bank" in self.__dict__:
            self.bank.close()
