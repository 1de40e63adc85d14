"""What keeps a run from going on forever, or ending too soon: each a small piece of state
the loop consults once per turn."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any

from ..contract.definition import CompletionRequirement
from ..contract.model import Entry, EntryKind
from .toolbox import ToolCallRecord

__all__ = ["RepeatGuard", "RequirementReminder", "note"]


def note(text: str, tag: str) -> Entry:
    """A message from the loop to the model, tagged so a renderer or a reader can tell."""
    return Entry(kind=EntryKind.USER, content=text, tag=tag)


class RepeatGuard:
    """Counts turns in a row whose tool calls and results were identical. Small models often
    loop: the second time, the model is told so; at `limit`, the run stops."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.repeats = 0
        self._last: tuple[Any, ...] | None = None

    def see(self, records: Sequence[ToolCallRecord]) -> None:
        signature = tuple(
            (
                r.call.name,
                json.dumps(r.call.arguments, sort_keys=True, default=str),
                r.result.content,
            )
            for r in records
        )
        self.repeats = self.repeats + 1 if signature == self._last else 1
        self._last = signature

    def reset(self) -> None:
        """An answer ends a streak: the same call after it serves a new question."""
        self.repeats, self._last = 0, None

    @property
    def stuck(self) -> bool:
        return self.repeats >= self.limit

    def warning(self, records: Sequence[ToolCallRecord]) -> Entry | None:
        """The note to send now, if this is the first repeat."""
        if self.repeats != 2:
            return None
        names = ", ".join(sorted({r.call.name for r in records}))
        return note(
            f"You already called {names} with these arguments and got the same "
            "result. Do not call it again: answer with what you have.",
            "repetition",
        )


class RequirementReminder:
    """An agent's completion requirement: the run is complete only once its tool was called;
    until then an answer earns a reminder, at most `recovery.max_retries` times."""

    def __init__(self, requirement: CompletionRequirement | None) -> None:
        self.requirement = requirement
        self.called: set[str] = set()
        self.sent = 0

    def see(self, records: Sequence[ToolCallRecord]) -> None:
        if self.requirement is not None:
            self.called.update(r.call.name for r in records if not r.result.is_error)

    @property
    def unmet(self) -> bool:
        return self.requirement is not None and self.requirement.tool not in self.called

    @property
    def exhausted(self) -> bool:
        assert self.requirement is not None
        return self.sent >= self.requirement.recovery.max_retries

    async def next(self) -> Entry:
        """The reminder to send, after the recovery delay."""
        assert self.requirement is not None
        self.sent += 1
        await asyncio.sleep(self.requirement.recovery.delay(self.sent))
        return note(self.requirement.reminder, "reminder")
