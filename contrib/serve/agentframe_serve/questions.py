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
    if action == "accept" and question.schema is not None:
        _check(question, content or {})
    answer.set_result(Answer(action, content if action == "accept" else None))
    return JSONResponse({"id": question_id, "object": "question.answer", "action": action})


_PYTHON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "number": (int, float),
    "integer": (int,),
    "boolean": (bool,),
}


def _check(question: Question, content: dict[str, Any]) -> None:
    """An accepted form's content as the question's fields allow: no other field, each of
    its type (and one of its choices), the required ones there."""
    fields = {f.name: f for f in question.fields}
    for name, value in content.items():
        spec = fields.get(name)
        param = f"content.{name}"
        if spec is None:
            raise ApiError(400, f"{param}: the question has no such field", param=param)
        wrong_bool = isinstance(value, bool) and spec.type != "boolean"
        if wrong_bool or not isinstance(value, _PYTHON_TYPES[spec.type]):
            raise ApiError(400, f"{param}: must be a {spec.type}", param=param)
        if spec.choices and value not in spec.choices:
            raise ApiError(400, f"{param}: one of {', '.join(spec.choices)}", param=param)
    for spec in question.fields:
        if spec.required and spec.name not in content:
            param = f"content.{spec.name}"
            raise ApiError(400, f"{param}: required", param=param)
