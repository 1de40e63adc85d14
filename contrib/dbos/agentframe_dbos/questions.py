"""A durable run's questions (an MCP server's elicitation, a permission rule's `ask`), each a
DBOS workflow of its own that waits for its answer: `agentframe send RUN QUESTION_ID ANSWER`.

DBOS allows `recv` only in a workflow's own body, and a question is mostly asked inside a step
(a tool call), so the run does not wait itself: it starts the question's workflow under an id
derived from what is asked (the run, the tool call, the question, how many times it was asked)
and awaits its result. A run recovered after a crash asks again under the same id and finds
the same workflow: the answer given before the crash, or the same wait, which a restarted
worker resumes too.
"""

from __future__ import annotations

import asyncio
import contextvars
import hashlib
import json
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from dbos import DBOS, SetWorkflowID

from agentframe_core import Answer, Question

from .names import ANSWER_TOPIC, QUESTION_PREFIX, QUESTION_WORKFLOW, question_workflow_id

__all__ = ["DurableQuestions", "agentframe_question", "asking_for", "question_of"]

_CALL: contextvars.ContextVar[str] = contextvars.ContextVar("agentframe_dbos_call", default="")
_ACTIONS = ("accept", "decline", "cancel")


@contextmanager
def asking_for(call_id: str) -> Iterator[None]:
    """Questions asked in here belong to the tool call `call_id` (part of their ids)."""
    token = _CALL.set(call_id)
    try:
        yield
    finally:
        _CALL.reset(token)


@DBOS.workflow(name=QUESTION_WORKFLOW)
async def agentframe_question(asked: dict[str, Any], wait_seconds: float) -> dict[str, Any]:
    """Wait `wait_seconds` for the answer to `asked` (a question's message, schema, source);
    `agentframe send` checks an answer against the question before it sends it."""
    answer: dict[str, Any] | None = await DBOS.recv_async(ANSWER_TOPIC, wait_seconds)
    if answer is None:
        return {"action": "decline", "reason": f"no answer within {wait_seconds:g} s"}
    return answer


def question_of(asked: dict[str, Any]) -> Question:
    """The question a question workflow's input holds."""
    return Question(asked["message"], asked.get("schema"), asked.get("source", ""))


class DurableQuestions:
    """A durable run's `on_question`: each question a workflow, its answer that workflow's
    result. `wait_seconds` is the worker's `--wait-pending` (0: every question declined)."""

    def __init__(self, workflow_id: str, wait_seconds: float) -> None:
        self.workflow_id = workflow_id
        self.wait_seconds = wait_seconds
        self._asked: Counter[str] = Counter()

    async def __call__(self, question: Question) -> Answer:
        if self.wait_seconds <= 0:
            return Answer("decline", reason="the worker waits for no answer (--wait-pending 0)")
        asked = {"message": question.message, "schema": question.schema, "source": question.source}
        digest = hashlib.sha256(
            json.dumps([_CALL.get(), asked], sort_keys=True, default=str).encode()
        ).hexdigest()[:16]
        count = self._asked[digest]
        self._asked[digest] += 1
        workflow_id = question_workflow_id(self.workflow_id, f"{QUESTION_PREFIX}{digest}-{count}")
        # Started from a context of its own: DBOS starts no workflow from inside a step.
        waiting = asyncio.create_task(
            _wait(workflow_id, asked, self.wait_seconds), context=contextvars.Context()
        )
        found = await waiting
        action = found.get("action")
        if action not in _ACTIONS:
            return Answer("cancel", reason=f"question {workflow_id}: no valid answer")
        return Answer(action, found.get("content"), str(found.get("reason", "")))


async def _wait(workflow_id: str, asked: dict[str, Any], wait_seconds: float) -> dict[str, Any]:
    with SetWorkflowID(workflow_id):
        handle = await DBOS.start_workflow_async(agentframe_question, asked, wait_seconds)
    found: dict[str, Any] = await handle.get_result()
    return found
