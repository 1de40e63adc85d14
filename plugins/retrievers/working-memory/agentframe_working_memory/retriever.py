"""`retrievers: [{use: working-memory}]`: a rolling summary of the session, kept up to date
after each run and given back on every later turn.

The loop has no after-run hook, so the summary of a run is written when the next one starts:
the retriever sees entries newer than the last summary, asks the model to fold them into it
(constrained schema, `max_tokens` cap), and stores the result as one entry tagged
`working-memory` through the Store, in a side session `<session id>:working-memory` (so it is
durable and exportable, but never rendered as part of the conversation, and compaction of the
conversation cannot fold it away). The latest summary is then returned as a snippet, which
the loop places beside the user's message.
"""

from __future__ import annotations

import logging
import re

from agentframe_core import (
    CompletionRequest,
    Entry,
    EntryKind,
    Message,
    Renderer,
    RunContext,
    Snippet,
    Store,
    textualize,
)

from .options import WorkingMemoryOptions
from .summary import Summary, summary_schema

__all__ = ["TAG", "WorkingMemoryRetriever", "side_session"]

log = logging.getLogger("agentframe.working_memory")

TAG = "working-memory"
INSTRUCTIONS = (
    "You keep the working memory of a conversation: short notes of the decisions taken, the "
    "tasks still open, and the facts learned. Update the notes with the new part of the "
    "conversation: keep what still holds, drop what was done or replaced, add what is new. "
    "Reply with JSON only."
)


def side_session(session_id: str) -> str:
    return f"{session_id}:{TAG}"


class WorkingMemoryRetriever:
    def __init__(self, options: WorkingMemoryOptions, store: Store | None = None) -> None:
        self.options = options
        self._store = store  # None: the stack's

    async def retrieve(self, query: str, *, ctx: RunContext, budget_tokens: int) -> list[Snippet]:
        if not query.strip():
            return []
        store = self._store or ctx.stack.store
        latest = await self._latest(store, ctx.session_id)
        summary, upto = latest if latest else (Summary(), 0)
        new = [e for e in await store.context(ctx.session_id) if e.created_at > upto]
        finished = _finished_runs(new)
        if finished:
            updated = await self._summarise(ctx, summary, finished)
            if updated is not None:
                summary = updated
                await store.append(
                    side_session(ctx.session_id),
                    Entry(
                        kind=EntryKind.ASSISTANT,
                        content=summary.to_json(),
                        tag=TAG,
                        meta={"upto": finished[-1].created_at},
                    ),
                )
        return _snippet(summary, query, budget_tokens)

    async def _latest(self, store: Store, session_id: str) -> tuple[Summary, int] | None:
        for entry in reversed(await store.context(side_session(session_id))):
            if entry.tag != TAG:
                continue
            try:
                return Summary.parse(entry.content), int(entry.meta.get("upto", 0))
            except (ValueError, TypeError) as err:
                log.warning("working memory entry %s unreadable (%s); skipped", entry.id, err)
        return None

    async def _summarise(
        self, ctx: RunContext, summary: Summary, entries: list[Entry]
    ) -> Summary | None:
        transcript = "\n".join(
            f"{m.role}: {m.content}" for m in textualize(_as_messages(entries)) if m.content
        )[-self.options.max_input_chars :]
        request = CompletionRequest(
            [
                Message("system", INSTRUCTIONS),
                Message(
                    "user",
                    f"Current notes:\n{summary.to_json()}\n\nNew part of the conversation:\n"
                    f"{transcript}",
                ),
            ],
            response_schema=summary_schema(),
            max_tokens=self.options.max_tokens,
            temperature=0.0,
            metadata={"session_id": ctx.session_id, "context_label": f"{TAG}:{ctx.session_id}"},
        )
        try:
            completion = await ctx.stack.adapter.complete(request)
            return Summary.parse(completion.content)
        except Exception as err:  # an untrusted reply or a failed call: keep the old notes
            log.warning("working memory not updated (%s: %s)", type(err).__name__, err)
            return None


def _finished_runs(entries: list[Entry]) -> list[Entry]:
    """The entries up to the last assistant answer: what the finished runs produced (the
    user's new message, not answered yet, waits for the next summary)."""
    last = max(
        (i for i, e in enumerate(entries) if e.kind is EntryKind.ASSISTANT and e.content),
        default=-1,
    )
    return entries[: last + 1]


def _as_messages(entries: list[Entry]) -> list[Message]:
    renderer = Renderer(2_000)
    renderer.feed(entries)
    return renderer.view()


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"\w+", text.lower()) if len(w) > 2}


def _snippet(summary: Summary, query: str, budget_tokens: int) -> list[Snippet]:
    """The summary (whole lines within the budget). It is given whatever the query; its
    score rises with the share of the query's words it contains."""
    if not summary or budget_tokens <= 0:
        return []
    lines, room, kept = summary.render().split("\n"), budget_tokens * 4, []
    heading = "Working memory of this session:"
    used = len(heading)
    for line in lines:
        if used + 1 + len(line) > room:
            break
        kept.append(line)
        used += 1 + len(line)
    if not kept:
        return []
    asked = _words(query)
    overlap = len(asked & _words(summary.render())) / len(asked) if asked else 0.0
    return [Snippet("\n".join([heading, *kept]), TAG, 0.5 + 0.5 * overlap)]
