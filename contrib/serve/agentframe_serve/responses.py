"""OpenAI Responses: `POST /v1/responses` (JSON or its streaming events), continued with
`previous_response_id`; `GET` and `DELETE /v1/responses/{id}`.

A response is a run on a session; `previous_response_id` names the session to continue,
and the new input is stored in it. Client tools come back as `function_call` output items,
their results as `function_call_output` input items (the parked calls' lifted results).
Responses are remembered in the configured store (`records`), as long as their session is:
a restarted server, or another replica on the same store, answers and continues them."""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import AsyncGenerator
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from agentframe_core import RunResult, Tool, ToolCall, Usage

from .chat import said_with_calls, text_of
from .clienttools import client_calls, client_tool
from .conversations import ClientMessage
from .errors import ApiError, from_validation
from .runs import Failed, Finished, Token, ToolDone, events
from .service import Service, Turn
from .wire import ClientGone, EventStream, sse, unless_disconnected

__all__ = ["create_response", "delete_response", "get_response"]

log = logging.getLogger("agentframe.serve")


class _FunctionTool(BaseModel):
    model_config = ConfigDict(extra="ignore")
    type: Literal["function"]
    name: str = Field(pattern=r"^[A-Za-z0-9_-]{1,64}$")
    description: str | None = None
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})


class ResponsesRequest(BaseModel):
    model_config = ConfigDict(extra="ignore")
    model: str
    input: str | list[dict[str, Any]]
    instructions: str | None = None
    previous_response_id: str | None = None
    tools: list[_FunctionTool] | None = None
    stream: bool = False
    session_id: str | None = None


def _items(request: ResponsesRequest, cap: int) -> list[ClientMessage]:
    """The input as messages: an assistant message and the function calls after it are one
    message, as the chat API (and the conversation digest) sees them."""
    raw = request.input
    items: list[dict[str, Any]] = (
        [{"role": "user", "content": raw}] if isinstance(raw, str) else raw
    )
    if len(items) > cap:
        raise ApiError(400, f"input: more than {cap} items (serve.max_messages)", param="input")
    out: list[ClientMessage] = []
    if request.instructions and not request.previous_response_id:
        out.append(ClientMessage("system", request.instructions, "instructions"))
    for i, item in enumerate(items):
        path = f"input[{i}]"
        kind = item.get("type", "message")
        if kind == "message":
            role = item.get("role")
            if role not in ("user", "assistant", "system", "developer"):
                raise ApiError(
                    400,
                    f"{path}.role: one of user, assistant, system, developer",
                    param=f"{path}.role",
                )
            content = item.get("content")
            if not isinstance(content, str | list | type(None)):
                raise ApiError(
                    400, f"{path}.content: text or a list of parts", param=f"{path}.content"
                )
            text = text_of(content, f"{path}.content")
            out.append(ClientMessage("system" if role == "developer" else role, text, path))
        elif kind == "function_call":
            call = _call(item, path)
            last = out[-1] if out else None
            if last is not None and last.role == "assistant":
                out[-1] = ClientMessage(
                    "assistant", last.content, last.path, (*last.tool_calls, call)
                )
            else:
                out.append(ClientMessage("assistant", "", path, (call,)))
        elif kind == "function_call_output":
            call_id, output = item.get("call_id"), item.get("output")
            if not isinstance(call_id, str) or not isinstance(output, str):
                raise ApiError(
                    400, f"{path}: call_id and output must be strings", param=f"{path}.call_id"
                )
            out.append(ClientMessage("tool", output, path, tool_call_id=call_id))
        else:
            raise ApiError(
                400, f"{path}.type: {kind!r} items are not supported", param=f"{path}.type"
            )
    return out


def _call(item: dict[str, Any], path: str) -> ToolCall:
    call_id, name, arguments = item.get("call_id"), item.get("name"), item.get("arguments", "{}")
    if not isinstance(call_id, str) or not isinstance(name, str) or not isinstance(arguments, str):
        raise ApiError(400, f"{path}: call_id, name and arguments must be strings", param=path)
    try:
        parsed = json.loads(arguments or "{}")
    except ValueError:
        raise ApiError(400, f"{path}.arguments: not JSON", param=f"{path}.arguments") from None
    if not isinstance(parsed, dict):
        raise ApiError(400, f"{path}.arguments: must be a JSON object", param=f"{path}.arguments")
    return ToolCall(call_id, name, parsed)


def _usage(usage: Usage) -> dict[str, Any]:
    return {
        "input_tokens": usage.prompt_tokens,
        "input_tokens_details": {"cached_tokens": usage.cached_tokens},
        "output_tokens": usage.completion_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": usage.prompt_tokens + usage.completion_tokens,
    }


def _message_item(item_id: str, text: str, status: str = "completed") -> dict[str, Any]:
    content = [{"type": "output_text", "text": text, "annotations": []}] if status else []
    return {
        "type": "message",
        "id": item_id,
        "status": status,
        "role": "assistant",
        "content": content,
    }


def _call_item(call: ToolCall) -> dict[str, Any]:
    return {
        "type": "function_call",
        "id": f"fc_{call.id}",
        "call_id": call.id,
        "name": call.name,
        "arguments": json.dumps(call.arguments, ensure_ascii=False),
        "status": "completed",
    }


def _body(
    response_id: str,
    agent: str,
    turn: Turn,
    previous: str | None,
    *,
    status: str,
    output: list[dict[str, Any]],
    result: RunResult | None = None,
    error: ApiError | None = None,
) -> dict[str, Any]:
    return {
        "id": response_id,
        "object": "response",
        "created_at": int(time.time()),
        "status": status,
        "model": agent,
        "output": output,
        "output_text": "".join(
            c["text"] for i in output if i["type"] == "message" for c in i["content"]
        ),
        "previous_response_id": previous,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "error": {"code": "server_error", "message": error.body()["error"]["message"]}
        if error
        else None,
        "incomplete_details": None,
        "usage": _usage(result.total_usage) if result else None,
        "session_id": turn.client_id,
        "agentframe": {"outcome": result.outcome.value, "turns": result.turns} if result else None,
    }


async def create_response(service: Service, request: Request) -> Response | EventStream:
    owner = service.gate.admit(request)
    body = await service.gate.body(request)
    try:
        parsed = ResponsesRequest.model_validate(body)
    except ValidationError as err:
        raise from_validation(err) from None
    agent = service.agent(parsed.model)
    messages = _items(parsed, service.gate.settings.max_messages)
    named = parsed.session_id or request.headers.get("x-session-id")
    if parsed.previous_response_id is not None:
        named, _ = await service.responses.find(
            owner, parsed.previous_response_id, "previous_response_id"
        )
    tools: list[Tool] = [
        client_tool(t.name, t.description or "", t.parameters) for t in parsed.tools or []
    ]
    release = service.gate.hold(owner)
    try:
        turn = await service.turn(
            owner, agent, messages, named=named, param="session_id", tools=tools
        )
    except BaseException:
        release()
        raise
    response_id = f"resp_{uuid.uuid4().hex}"
    headers = {"x-session-id": turn.client_id}
    previous = parsed.previous_response_id
    if parsed.stream:
        chunks = _events(service, turn, response_id, agent.name, previous)
        return EventStream(chunks, release, headers)
    try:
        result = await unless_disconnected(request, turn.session.run(turn.prompt))
    except ClientGone:
        return Response(status_code=499)
    except Exception as err:
        log.warning("run on session %s failed: %s", turn.session.id, type(err).__name__)
        raise ApiError(
            500, f"the run failed: {type(err).__name__}: {err}", code="run_failed"
        ) from None
    finally:
        release()
    calls = client_calls(result.tool_calls)
    text = result.reply if not calls else await said_with_calls(turn)
    output = [_message_item(f"msg_{uuid.uuid4().hex}", text)] if text else []
    output += [_call_item(c) for c in calls]
    answer = _body(
        response_id, agent.name, turn, previous, status="completed", output=output, result=result
    )
    await service.remember(turn, ClientMessage("assistant", text, "", tuple(calls)))
    await service.responses.keep(owner, turn.client_id, answer)
    return JSONResponse(answer, headers=headers)


async def _events(
    service: Service, turn: Turn, response_id: str, agent: str, previous: str | None
) -> AsyncGenerator[bytes, None]:
    """The Responses streaming events, each with its `sequence_number`."""
    sequence = 0

    def event(kind: str, **fields: Any) -> bytes:
        nonlocal sequence
        sequence += 1
        return sse({"type": kind, "sequence_number": sequence - 1, **fields}, event=kind)

    start = _body(response_id, agent, turn, previous, status="in_progress", output=[])
    yield event("response.created", response=start)
    yield event("response.in_progress", response=start)
    message_id = f"msg_{uuid.uuid4().hex}"
    said: list[str] = []
    where = {"item_id": message_id, "output_index": 0, "content_index": 0}
    async for item in events(turn.session, turn.prompt):
        if isinstance(item, Token):
            if not said:
                added = _message_item(message_id, "", status="in_progress")
                yield event("response.output_item.added", output_index=0, item=added)
                part = {"type": "output_text", "text": "", "annotations": []}
                yield event("response.content_part.added", part=part, **where)
            said.append(item.text)
            yield event("response.output_text.delta", delta=item.text, logprobs=[], **where)
        elif isinstance(item, ToolDone):
            if not item.record.result.meta.get("client_tool"):
                yield f": tool {item.record.call.name} done\n\n".encode()
        elif isinstance(item, Failed):
            log.warning("run on session %s failed: %s", turn.session.id, type(item.error).__name__)
            error = ApiError(500, f"the run failed: {type(item.error).__name__}: {item.error}")
            failed = _body(
                response_id, agent, turn, previous, status="failed", output=[], error=error
            )
            yield event("response.failed", response=failed)
        elif isinstance(item, Finished):
            result = item.result
            calls = client_calls(result.tool_calls)
            text = "".join(said)
            output: list[dict[str, Any]] = []
            if said:
                done = _message_item(message_id, text)
                yield event("response.output_text.done", text=text, logprobs=[], **where)
                yield event("response.content_part.done", part=done["content"][0], **where)
                yield event("response.output_item.done", output_index=0, item=done)
                output.append(done)
            for call in calls:
                item_json = _call_item(call)
                index = len(output)
                yield event(
                    "response.output_item.added",
                    output_index=index,
                    item={**item_json, "status": "in_progress"},
                )
                yield event(
                    "response.function_call_arguments.done",
                    item_id=item_json["id"],
                    output_index=index,
                    name=call.name,
                    arguments=item_json["arguments"],
                )
                yield event("response.output_item.done", output_index=index, item=item_json)
                output.append(item_json)
            answer = _body(
                response_id, agent, turn, previous, status="completed", output=output, result=result
            )
            await service.remember(turn, ClientMessage("assistant", text, "", tuple(calls)))
            await service.responses.keep(turn.owner, turn.client_id, answer)
            yield event("response.completed", response=answer)


async def get_response(service: Service, request: Request) -> Response:
    owner = service.gate.admit(request)
    _, body = await service.responses.find(owner, request.path_params["response_id"], "response_id")
    return JSONResponse(body)


async def delete_response(service: Service, request: Request) -> Response:
    owner = service.gate.admit(request)
    response_id = request.path_params["response_id"]
    await service.responses.find(owner, response_id, "response_id")
    await service.responses.drop(owner, response_id)
    return JSONResponse({"id": response_id, "object": "response.deleted", "deleted": True})
