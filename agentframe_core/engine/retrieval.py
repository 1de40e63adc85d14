"""Retrieval for one run: ask every retriever, report what each returned, and place the snippets
beside the latest user message, never in the system prompt.

The system prompt, the tool list and the skill index are the same on every turn, so the model
server can reuse their KV cache; retrieved text changes with each question, and at the top of
the prompt it would make every request differ from its first tokens on.

What each retriever returned is recorded (`RunContext.retrievals`, then `RunResult` and
`run --json`) and logged at INFO (`-v`), so a user can see that a retriever ran and what it
found without reading the prompt.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any

from ..contract.model import Message
from ..contract.reports import RetrievalReport
from .telemetry import step_span

if TYPE_CHECKING:
    from ..contract.protocols import RunContext, Snippet

__all__ = ["place_retrieved", "retrieved_context"]

log = logging.getLogger("agentframe.retrieval")

#: The heading retrieved snippets appear under, in front of the latest user message.
HEADING = "# Relevant context"


async def retrieved_context(query: str, ctx: RunContext) -> str:
    """Every retriever's snippets for `query`, each within `limits.retrieval_budget_tokens`,
    as one block for `place_retrieved` ("" when none found anything)."""
    stack = ctx.stack
    budget = stack.limits.retrieval_budget_tokens
    names = _names(ctx)
    found = await asyncio.gather(
        *(
            _timed(r.retrieve(query, ctx=ctx, budget_tokens=budget), ctx, name)
            for r, name in zip(stack.retrievers, names, strict=True)
        )
    )
    snippets: list[Snippet] = []
    for name, (group, seconds) in zip(names, found, strict=True):
        report = RetrievalReport(
            name,
            query,
            len(group),
            sum(len(s.text) for s in group),
            budget,
            seconds,
            [s.source for s in group if s.source],
        )
        ctx.retrievals.append(report)
        log.info(
            "retriever %s: %d snippet(s), %d chars in %.3fs for %r",
            name,
            report.snippets,
            report.chars,
            seconds,
            query[:80],
        )
        snippets.extend(group)
    if not snippets:
        return ""
    body = "\n\n".join(f"[{s.source}]\n{s.text}" if s.source else s.text for s in snippets)
    return f"{HEADING}\n\n{body}"


async def _timed(call: Any, ctx: RunContext, name: str) -> tuple[list[Snippet], float]:
    with step_span(ctx.stack, "retrieval", f"retrieval {name}") as span:
        started = time.perf_counter()
        result = await call
        if span is not None and span.is_recording():
            span.set_attribute("agentframe.retrieval.snippets", len(result))
    return result, time.perf_counter() - started


def _names(ctx: RunContext) -> list[str]:
    """The config's part names when the stack came from a config, else the class names."""
    retrievers = ctx.stack.retrievers
    config = ctx.stack.config
    if config is not None and len(config.retrievers) == len(retrievers):
        return [part.name for part in config.retrievers]
    return [type(r).__name__ for r in retrievers]


def place_retrieved(messages: list[Message], block: str) -> list[Message]:
    """`messages` with `block` put in front of the latest user message's text (a new user
    message at the end when there is none). Earlier messages are left exactly as they are, so
    the model server's KV cache of the stable prefix (system prompt, tools, history) holds."""
    if not block:
        return messages
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.role == "user":
            content = f"{block}\n\n# Message\n\n{message.content}"
            placed = Message(
                "user", content, message.tool_calls, message.tool_call_id, message.name
            )
            return [*messages[:index], placed, *messages[index + 1 :]]
    return [*messages, Message("user", block)]
