"""Where retrieved snippets go: beside the latest user message, never in the system prompt.

The system prompt, the tool list and the skill index are the same on every turn, so the model
server can reuse their KV cache. Retrieved text changes with each question: placed at the top
of the system prompt it would make every turn's prompt differ from its first tokens on.
"""

from __future__ import annotations

from collections.abc import Sequence

from .model import Message
from .protocols import Snippet

__all__ = ["place_retrieved", "render_snippets"]

HEADING = "# Relevant context"


def render_snippets(snippets: Sequence[Snippet]) -> str:
    """The snippets as one block of text ("" for none)."""
    if not snippets:
        return ""
    body = "\n\n".join(f"[{s.source}]\n{s.text}" if s.source else s.text for s in snippets)
    return f"{HEADING}\n\n{body}"


def place_retrieved(messages: list[Message], block: str) -> list[Message]:
    """`messages` with `block` put in front of the latest user message's text (a new user
    message at the end when there is none). Earlier messages are left exactly as they are."""
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
