"""Stage 2: the stack's model picks, from the BM25 candidates, the memories worth loading.

The reply is constrained by a JSON schema (`{"ids": [...]}`, each id one of the candidates'
numbers, at most `limit`), so even a small model cannot answer outside the list. A reply that
is still unusable (a backend that ignores the schema, an error) keeps the BM25 order.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import Any

from agentframe_core import CompletionRequest, Message, RunContext, strip_fence

from .files import Memory

__all__ = ["select_schema", "selected"]

log = logging.getLogger("agentframe.memory")

INSTRUCTIONS = (
    "You pick which saved memories help answer the user's message. Reply with JSON "
    '{"ids": [...]}: the numbers of the useful memories, most useful first, at most %d; '
    "an empty list when none helps."
)


def select_schema(count: int, limit: int) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "ids": {
                "type": "array",
                "items": {"type": "string", "enum": [str(n) for n in range(1, count + 1)]},
                "maxItems": limit,
                "uniqueItems": True,
            }
        },
        "required": ["ids"],
        "additionalProperties": False,
    }


def _listing(candidates: Sequence[Memory]) -> str:
    lines = []
    for number, memory in enumerate(candidates, 1):
        first = next((line.strip() for line in memory.content.splitlines() if line.strip()), "")
        tags = f" [{', '.join(memory.tags)}]" if memory.tags else ""
        lines.append(f"{number}. {memory.title}{tags} — {first[:160]}")
    return "\n".join(lines)


async def selected(
    query: str, candidates: Sequence[Memory], ctx: RunContext, limit: int
) -> list[Memory] | None:
    """The candidates the model chose, in the candidates' order; None when it could not say."""
    request = CompletionRequest(
        [
            Message("system", INSTRUCTIONS % limit),
            Message("user", f"Message: {query[:2000]}\n\nMemories:\n{_listing(candidates)}"),
        ],
        response_schema=select_schema(len(candidates), limit),
        max_tokens=64,
        temperature=0.0,
        metadata={"session_id": ctx.session_id, "context_label": f"memory-select:{ctx.session_id}"},
    )
    try:
        completion = await ctx.stack.adapter.complete(request)
        reply = json.loads(strip_fence(completion.content))
        numbers = reply["ids"] if isinstance(reply, dict) else None
        if not isinstance(numbers, list):
            raise ValueError(f"no ids list in {completion.content[:200]!r}")
    except Exception as err:  # the model's reply is untrusted: fall back, never fail the turn
        log.info(
            "memory selection unusable (%s: %s); keeping the BM25 order", type(err).__name__, err
        )
        return None
    chosen = {int(n) for n in numbers if str(n).isdigit() and 1 <= int(n) <= len(candidates)}
    return [m for i, m in enumerate(candidates, 1) if i in chosen][:limit]
