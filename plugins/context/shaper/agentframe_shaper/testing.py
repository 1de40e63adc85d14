"""For tests of the shaper and its users: a stack around a shaper, and a measure of how big
messages are that does not depend on how the shaper counts."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

from agentframe_core import (
    Entry,
    EntryKind,
    MemoryStore,
    Message,
    RunContext,
    RunResult,
    Session,
    Stack,
    new_id,
    now_ns,
)
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


_VOCABULARY = (
    "the report lists item order stock price region north south east west quarter total "
    "supplier delay shipment warehouse count audit value customer invoice paid open closed "
    "pending review note update status batch code green amber red level index limit"
)
_WORDS = _VOCABULARY.split()


@dataclass(frozen=True, slots=True)
class ScriptedTurn:
    """One turn of a long conversation: a user message, maybe a tool exchange before the
    model answers (its call and its result, as if the model had asked for it)."""

    user: str
    tool_result: str | None = None


def _prose(rng: random.Random, chars: int) -> str:
    words: list[str] = []
    size = 0
    while size < chars:
        word = rng.choice(_WORDS) if rng.random() > 0.1 else str(rng.randint(1, 9999))
        words.append(word)
        size += len(word) + 1
    return " ".join(words)[:chars]


def long_conversation(turns: int = 60, seed: int = 13, scale: float = 1.0) -> list[ScriptedTurn]:
    """The same varied conversation every time: short and long user messages, tool results
    from a few hundred characters to several thousand on two turns in three (`scale`
    multiplies every size)."""
    rng = random.Random(seed)
    script = []
    for index in range(turns):
        user = f"Turn {index}: " + _prose(rng, int(rng.choice((60, 120, 250, 600)) * scale))
        result = None
        if index % 3:
            result = _prose(rng, int(rng.choice((300, 800, 1500, 3000)) * scale))
        script.append(ScriptedTurn(user, result))
    return script


async def play(session: Session, turn: ScriptedTurn, **callbacks: Any) -> RunResult:
    """Send the turn's message, record its tool exchange, and let the model answer."""
    await session.send(turn.user)
    await session.stack.store.claim_pending(session.id, now_ns())
    if turn.tool_result is not None:
        call_id = new_id()
        for entry in (
            Entry(kind=EntryKind.ASSISTANT, content=""),
            Entry(
                kind=EntryKind.TOOL_CALL,
                content=json.dumps({"query": turn.user[:40]}),
                tool_call_id=call_id,
                tool_name="lookup",
            ),
            Entry(
                kind=EntryKind.TOOL_RESULT,
                content=turn.tool_result,
                tool_call_id=call_id,
                tool_name="lookup",
            ),
        ):
            await session.inject(entry)
    return await session.run(**callbacks)
