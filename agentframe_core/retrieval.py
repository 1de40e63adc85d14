"""Retrieval for one run: ask every retriever, report what each returned, build the prompt part.

What each retriever returned is recorded (`RunContext.retrievals`, then `RunResult` and
`run --json`) and logged at INFO (`-v`), so a user can see that a retriever ran and what it
found without reading the prompt.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any

from .reports import RetrievalReport

if TYPE_CHECKING:
    from .protocols import RunContext, Snippet

__all__ = ["retrieved_context"]

log = logging.getLogger("agentframe.retrieval")

#: The heading retrieved snippets appear under, at the end of the system prompt.
HEADING = "# Relevant context"


async def retrieved_context(query: str, ctx: RunContext) -> str:
    """Every retriever's snippets for `query`, each within `limits.retrieval_budget_tokens`,
    as the text appended to the system prompt ("" when none found anything)."""
    stack = ctx.stack
    budget = stack.limits.retrieval_budget_tokens
    names = _names(ctx)
    found = await asyncio.gather(
        *(_timed(r.retrieve(query, ctx=ctx, budget_tokens=budget)) for r in stack.retrievers)
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
    return f"\n\n{HEADING}\n\n{body}"


async def _timed(call: Any) -> tuple[list[Snippet], float]:
    started = time.perf_counter()
    result = await call
    return result, time.perf_counter() - started


def _names(ctx: RunContext) -> list[str]:
    """The config's part names when the stack came from a config, else the class names."""
    retrievers = ctx.stack.retrievers
    config = ctx.stack.config
    if config is not None and len(config.retrievers) == len(retrievers):
        return [part.name for part in config.retrievers]
    return [type(r).__name__ for r in retrievers]
