"""A context builder's token budget that cannot be met: what the builder cannot shrink (the
system prompt, the tools, the tail it always keeps) is larger than it. The loop checks each
prompt it sent; `config check` checks the system prompt and the tools before any run."""

from __future__ import annotations

import json
from collections.abc import Iterable

from ..contract.llm import ToolSpec
from ..contract.tools import Tool

__all__ = ["estimated_tokens", "over_budget_message"]

#: Characters a token, the conservative estimate the kernel uses where nothing counts.
CHARS_PER_TOKEN = 4


def estimated_tokens(texts: Iterable[str], tools: Iterable[ToolSpec | Tool] = ()) -> int:
    """Tokens of `texts` and the tool schemas, at four characters a token."""
    chars = sum(len(text) for text in texts)
    chars += sum(
        len(t.name) + len(t.description) + len(json.dumps(t.parameters, default=str)) for t in tools
    )
    return chars // CHARS_PER_TOKEN


def over_budget_message(prompt_tokens: int, budget_tokens: int, builder: str, what: str) -> str:
    """The warning: both numbers, and what to change."""
    return (
        f"{what} {prompt_tokens} tokens, over the budget of the context builder {builder} "
        f"({budget_tokens} tokens): the system prompt, the tools and the tail it always keeps "
        "cannot be shrunk to fit; raise its budget, or offer fewer tools"
    )
