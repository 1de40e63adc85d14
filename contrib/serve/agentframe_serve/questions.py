"""Questions a run's parts ask the person (`RunContext.ask`), forwarded to an AG-UI client
as a CUSTOM `agentframe.question` event, and answered with `POST /v1/questions/{id}`
(agentframe's own API) by the key whose run asked. A question is waiting only while its
stream is open: a client that leaves cancels the run and drops its questions."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse

from agentframe_core import Answer, Question

from .errors import ApiError
from .service import Service

__all__ = ["answer_question", "question_json"]

_ACTIONS = ("accept", "decline", "cancel")


def question_json(question_id: str, question: Question) -> dict[str, Any]:
    return {
        "id": question_id,
        "message": question.message,
        "schema": question.schema,
        "source": question.source,
    }


async def answer_question(service: Service, request: Request) -> JSONResponse:
    """`{"action": "accept"|"decline"|"cancel", "content": {...}}` for a waiting question."""
    owner = service.gate.admit(request)
    question_id = request.path_params["question_id"]
    body = await service.gate.body(request)
    action = body.get("action")
    if action not in _ACTIONS:
        raise ApiError(400, f"action: one of {', '.join(_ACTIONS)}", param="action")
    content = body.get("content")
    if content is not None and not isinstance(content, dict):
        raise ApiError(400, "content: an object of the form's fields", param="content")
    waiting = service.questions.take(owner, question_id)
    if waiting is None:
        raise ApiError(404, f"no question {question_id!r} waiting", param="question_id")
    question, answer = waiting
    problem = question.content_problem(content or {}) if action == "accept" else None
    if problem is not None:
        name, why = problem
        raise ApiError(400, f"content.{name}: {why}", param=f"content.{name}")
    answer.set_result(Answer(action, content if action == "accept" else None))
    return JSONResponse({"id": question_id, "object": "question.answer", "action": action})
