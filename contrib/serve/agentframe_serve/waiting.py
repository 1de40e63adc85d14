"""The questions waiting for their answer (`questions.py`), each with the key whose run
asked it: another key's question is unknown to it."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass, field

from agentframe_core import Answer, Question

__all__ = ["Waiting"]


@dataclass(slots=True)
class Waiting:
    """The questions waiting for an answer, each with the key whose run asked it."""

    _open: dict[str, tuple[str, Question, asyncio.Future[Answer]]] = field(default_factory=dict)

    def add(self, owner: str, question: Question, answer: asyncio.Future[Answer]) -> str:
        question_id = f"q_{uuid.uuid4().hex}"
        self._open[question_id] = (owner, question, answer)
        answer.add_done_callback(lambda _: self._open.pop(question_id, None))
        return question_id

    def take(self, owner: str, question_id: str) -> tuple[Question, asyncio.Future[Answer]] | None:
        found = self._open.get(question_id)
        if found is None or found[0] != owner or found[2].done():
            return None  # another key's question is unknown here, as one never asked
        return found[1], found[2]
