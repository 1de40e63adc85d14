"""One run as a stream of events, for every protocol the server speaks: `Session.run` in a
task, its callbacks turned into an async iterator. Leaving the iterator early (the client
went away) cancels the run; the loop then records an 'interrupted' result for any tool call
in flight, so the session's history stays well-formed."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from agentframe_core import (
    Answer,
    CompactionReport,
    Question,
    RunResult,
    Session,
    ToolCallRecord,
)

__all__ = [
    "Asked",
    "Compacted",
    "Event",
    "Failed",
    "Finished",
    "Progress",
    "Token",
    "ToolDone",
    "events",
]


@dataclass(frozen=True, slots=True)
class Token:
    text: str


@dataclass(frozen=True, slots=True)
class ToolDone:
    """A tool call ran and its result is stored."""

    record: ToolCallRecord


@dataclass(frozen=True, slots=True)
class Progress:
    """What a part reported through `RunContext.emit` (a sub-agent's steps, say)."""

    kind: str
    data: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Asked:
    """A part asks the person: the protocol forwards `question` to its client and sets
    `answer` (the run waits for it)."""

    question: Question
    answer: asyncio.Future[Answer]


@dataclass(frozen=True, slots=True)
class Compacted:
    report: CompactionReport


@dataclass(frozen=True, slots=True)
class Finished:
    result: RunResult


@dataclass(frozen=True, slots=True)
class Failed:
    error: BaseException


Event = Token | ToolDone | Progress | Asked | Compacted | Finished | Failed


async def events(
    session: Session, prompt: str | None = None, *, asking: bool = False
) -> AsyncIterator[Event]:
    """The run's events, ending with one `Finished` or `Failed`. With `asking`, the parts'
    questions are `Asked` events (the protocol can reach its client); without, the kernel
    declines them at once."""
    queue: asyncio.Queue[Event] = asyncio.Queue()

    async def ask(question: Question) -> Answer:
        answer: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        queue.put_nowait(Asked(question, answer))
        return await answer

    on_question: Callable[[Question], Awaitable[Answer]] | None = ask if asking else None
    task = asyncio.create_task(
        session.run(
            prompt,
            on_token=lambda text: queue.put_nowait(Token(text)),
            on_tool=lambda record: queue.put_nowait(ToolDone(record)),
            on_event=lambda kind, data: queue.put_nowait(Progress(kind, data)),
            on_compaction=lambda report: queue.put_nowait(Compacted(report)),
            on_question=on_question,
        )
    )

    def ended(done: asyncio.Task[RunResult]) -> None:
        if done.cancelled():
            queue.put_nowait(Failed(asyncio.CancelledError()))
        elif (error := done.exception()) is not None:
            queue.put_nowait(Failed(error))
        else:
            queue.put_nowait(Finished(done.result()))

    task.add_done_callback(ended)
    try:
        while True:
            event = await queue.get()
            yield event
            if isinstance(event, Finished | Failed):
                return
    finally:
        if not task.done():
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
