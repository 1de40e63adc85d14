"""Stage 3: load the chosen memories in rank order until the token budget is spent, cutting
the last one at a line boundary. Tokens are estimated at four characters, like the loop does."""

from __future__ import annotations

from collections.abc import Sequence

from agentframe_core import Snippet

from .files import Memory

__all__ = ["load_within", "render"]

CHARS_PER_TOKEN = 4


def render(memory: Memory) -> str:
    tags = f"\ntags: {', '.join(memory.tags)}" if memory.tags else ""
    return f"## {memory.title}{tags}\n\n{memory.content}".rstrip()


def cut_at_line(text: str, room: int) -> str:
    """The longest run of whole lines of `text` within `room` characters ("" if none fits)."""
    if len(text) <= room:
        return text
    end = text.rfind("\n", 0, room + 1)
    return text[:end].rstrip() if end > 0 else ""


def load_within(ranked: Sequence[tuple[Memory, float]], budget_tokens: int) -> list[Snippet]:
    room = max(0, budget_tokens) * CHARS_PER_TOKEN
    snippets = []
    for memory, score in ranked:
        text = cut_at_line(render(memory), room)
        if not text:
            break
        snippets.append(Snippet(text, f"memory:{memory.id}", score))
        room -= len(text)
    return snippets
