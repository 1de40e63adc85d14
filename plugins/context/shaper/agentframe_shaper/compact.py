"""Compaction: the oldest prefix of a session summarised by a model, written atomically.

When the stack's own model summarises and the window allows, the summary request is the
prompt the model last saw (plus what is new) followed by the instruction: its prefix is what
the server has cached, so only the new part and the instruction are computed. Otherwise the
prefix goes to the model as a transcript of its own.

The summary replaces the prefix in the store (`Store.compact`: the marker and the subsumed
rows in one step); the subsumed entries are hidden, not deleted, so `load_message` can still
read them where the store keeps history.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from agentframe_core import (
    Compaction,
    CompletionRequest,
    Entry,
    EntryKind,
    Message,
    RunContext,
    head_tail,
)

from .tokens import TokenEstimator

__all__ = ["Seen", "Summariser"]

log = logging.getLogger("agentframe.shaper")

INSTRUCTIONS = (
    "You compress conversations. Summarise the conversation below in a few short sentences: "
    "the user's goals, the facts and results found, decisions made, and what is still open. "
    "Keep names, numbers and identifiers exactly. Write only the summary."
)

#: What the instruction at the end of a conversation may cost, in tokens (a bound).
FOLLOW_UP_TOKENS = 96

#: The most characters any one entry contributes to the text given to the summariser.
ENTRY_CHARS = 1500


@dataclass(frozen=True, slots=True)
class Seen:
    """The prompt as the model last saw it, with what is new since: `tail` of its messages
    (the last ones) stay verbatim after the compaction."""

    messages: list[Message]
    tail: int

    def follow_up(self) -> Message:
        but = f", except its last {self.tail} messages," if self.tail else ""
        return Message(
            "user",
            f"Summarise our conversation so far{but} in a few short sentences: my goals, "
            "the facts and results found, decisions made, and what is still open. Keep "
            "names, numbers and identifiers exactly. Write only the summary.",
        )


@dataclass(frozen=True, slots=True)
class Summariser:
    estimator: TokenEstimator
    max_tokens: int
    model: str | None
    inline_chars: int

    async def compact(
        self,
        ctx: RunContext,
        prefix: list[Entry],
        follower: Entry | None,
        input_tokens: int,
        seen: Seen | None = None,
    ) -> str:
        """Replace `prefix` (which `follower` comes right after) by one summary marker;
        return the summary. With `seen`, the request continues that conversation."""
        if seen is not None:
            messages = [*ctx.wire(seen.messages), seen.follow_up()]
        else:
            transcript = await self._transcript(prefix, input_tokens)
            messages = [Message("system", INSTRUCTIONS), Message("user", transcript)]
        summary = await self._summarise(ctx, messages, prefix)
        marker = Entry(
            kind=EntryKind.COMPACTION,
            content=summary,
            tag="shaper",
            created_at=_slot(prefix[-1], follower),
            meta={"subsumed": len(prefix)},
        )
        await ctx.stack.store.compact(
            ctx.session_id, Compaction(marker, frozenset(e.id for e in prefix))
        )
        return summary

    async def _transcript(self, prefix: list[Entry], input_tokens: int) -> str:
        lines = [_line(entry) for entry in prefix]
        text = "\n".join(lines)
        for _ in range(4):  # shrink until the summariser's own window holds it
            (tokens,) = await self.estimator.count([text])
            if tokens <= input_tokens:
                break
            text = head_tail(text, max(int(len(text) * input_tokens / tokens * 0.9), 200))
        return text

    async def _summarise(
        self, ctx: RunContext, messages: list[Message], prefix: list[Entry]
    ) -> str:
        request = CompletionRequest(messages, model=self.model, max_tokens=self.max_tokens)
        limit = self.max_tokens * 4
        try:
            completion = await ctx.stack.adapter.complete(request)
            summary = completion.content.strip()
        except Exception as err:  # the session must go on: keep the first lines instead
            log.warning("the summary model failed (%s); keeping the first lines instead", err)
            summary = ""
        if not summary:
            firsts = [_line(entry).splitlines()[0][:120] for entry in prefix]
            summary = "Earlier messages (first lines):\n" + "\n".join(firsts)
        return summary if len(summary) <= limit else summary[:limit] + "…"


def _line(entry: Entry) -> str:
    who = entry.kind.value
    if entry.kind is EntryKind.TOOL_CALL:
        who = f"call {entry.tool_name}"
    elif entry.kind is EntryKind.TOOL_RESULT:
        who = f"result of {entry.tool_name}"
    elif entry.kind is EntryKind.COMPACTION:
        who = "earlier summary"
    return f"{who}: {head_tail(entry.content, ENTRY_CHARS)}"


def _slot(last: Entry, follower: Entry | None) -> int:
    """A created_at that sorts the marker after the prefix and before its follower."""
    if follower is not None and follower.created_at - 1 > last.created_at:
        return follower.created_at - 1
    return last.created_at
