"""For tests of the shaper and its users: a stack around a shaper, and a measure of how big
messages are that does not depend on how the shaper counts."""

from __future__ import annotations

import json

from agentframe_core import MemoryStore, Message, RunContext, Stack
from agentframe_core.testing import ScriptedAdapter, ScriptedReply
from agentframe_shaper import Shaper, ShaperOptions


def summarising_adapter(replies: int = 500) -> ScriptedAdapter:
    """A model that answers every summary request with a short summary."""
    return ScriptedAdapter([ScriptedReply(content="Summary: earlier talk.")] * replies)


def stack_with(shaper: Shaper, adapter: ScriptedAdapter | None = None) -> Stack:
    return Stack(adapter=adapter or summarising_adapter(), store=MemoryStore(), context=shaper)


def context(stack: Stack, session: str = "s") -> RunContext:
    return RunContext(session, stack)


def shaper(**options: object) -> Shaper:
    return Shaper(ShaperOptions.model_validate(options))


def message_tokens(message: Message) -> int:
    """Tokens of a message as sent, at four characters a token plus the template's markers:
    independent of how the shaper counts."""
    text = message.content
    for call in message.tool_calls:
        text += f"{call.name} {call.id} {json.dumps(call.arguments)}"
    return (len(text) + 3) // 4 + 4


def prompt_tokens(messages: list[Message]) -> int:
    return sum(message_tokens(m) for m in messages)
