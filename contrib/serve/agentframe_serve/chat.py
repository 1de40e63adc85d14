"""OpenAI Chat Completions: `POST /v1/chat/completions`, streaming (SSE chunks) or not.

Each model is an agent. The agent's own tools run on the server, the answer comes back as
the assistant message; tools in the request's `tools` are the client's, and their calls come
back as `tool_calls` (finish_reason "tool_calls"). Extension fields: `session_id` (request
and response) and `agentframe` (outcome and turns) in the response; the `X-Session-Id`
header in both directions."""

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

from agentframe_core import EntryKind, Outcome, RunResult, Tool, ToolCall

from .clienttools import client_calls, client_tool, sent_calls
from .conversations import ClientMessage
from .errors import ApiError, from_validation
from .runs import Failed, Finished, Token, ToolDone, events
from .service import Service, Turn, usage_json
from .wire import ClientGone, EventStream, sse, unless_disconnected

__all__ = ["chat_completions"]

log = logging.getLogger("agentframe.serve")

_NAME = r"^[A-Za-z0-9_-]{1,64}$"


class _Function(BaseModel):
    model_config = ConfigDict(extra="ignore")
    name: str = Field(pattern=_NAME)
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})


class _ToolDef(BaseModel):
    model_config = ConfigDict(extra="ignore")
    type: Literal["function"]
    function: _Function


class _CalledFunction(BaseModel):
    model_config = ConfigDict(extra="ignore")
    name: str
    arguments: str = "{}"


class _CallIn(BaseModel):
    model_config = ConfigDict(extra="ignore")
    id: str = Field(min_length=1, max_length=256)
    type: Literal["function"] = "function"
    function: _CalledFunction


class _MessageIn(BaseModel):
    model_config = ConfigDict(extra="ignore")
    role: Literal["system", "developer", "user", "assistant", "tool"]
    content: str | list[dict[str, Any]] | None = None
    tool_calls: list[_CallIn] | None = None
    tool_call_id: str | None = None


class _StreamOptions(BaseModel):
    model_config = ConfigDict(extra="ignore")
    include_usage: bool = False


class ChatRequest(BaseModel):
    model_config = ConfigDict(extra="ignore")
    model: str
    messages: list[_MessageIn] = Field(min_length=1)
    stream: bool = False
    stream_options: _StreamOptions | None = None
    tools: list[_ToolDef] | None = None
    session_id: str | None = None


def text_of(content: str | list[dict[str, Any]] | None, path: str) -> str:
    """A message's content as text: a string, or text parts (other parts are refused)."""
    if content is None or isinstance(content, str):
        return content or ""
    texts = []
    for j, part in enumerate(content):
        if part.get("type") not in ("text", "input_text", "output_text") or not isinstance(
            part.get("text"), str
        ):
            param = f"{path}[{j}]"
            raise ApiError(400, f"{param}: only text parts are supported", param=param)
        texts.append(part["text"])
    return "".join(texts)


def _messages(request: ChatRequest, cap: int) -> list[ClientMessage]:
    if len(request.messages) > cap:
        raise ApiError(
            400,
            f"messages: more than {cap} messages (serve.max_messages)",
            param="messages",
        )
    out = []
    for i, m in enumerate(request.messages):
        path = f"messages[{i}]"
        calls = sent_calls(m.tool_calls or [], f"{path}.tool_calls")
        if m.role == "tool" and not m.tool_call_id:
            param = f"{path}.tool_call_id"
            raise ApiError(400, f"{param}: a tool message needs it", param=param)
        role = "system" if m.role == "developer" else m.role
        out.append(
            ClientMessage(
                role, text_of(m.content, f"{path}.content"), path, tuple(calls), m.tool_call_id
            )
        )
    return out


def _tools(request: ChatRequest) -> list[Tool]:
    return [
        client_tool(t.function.name, t.function.description, t.function.parameters)
        for t in request.tools or []
    ]


def _finish_reason(result: RunResult, calls: list[ToolCall]) -> str:
    if calls:
        return "tool_calls"
    return "length" if result.outcome is Outcome.MAX_TURNS else "stop"


def _calls_json(calls: list[ToolCall], *, indexed: bool = False) -> list[dict[str, Any]]:
    return [
        {
            **({"index": i} if indexed else {}),
            "id": c.id,
            "type": "function",
            "function": {"name": c.name, "arguments": json.dumps(c.arguments, ensure_ascii=False)},
        }
        for i, c in enumerate(calls)
    ]


def _answer(content: str, calls: list[ToolCall]) -> ClientMessage:
    """The assistant message as the client will resend it."""
    return ClientMessage("assistant", content, "", tuple(calls))


async def chat_completions(service: Service, request: Request) -> Response | EventStream:
    owner = service.gate.admit(request)
    body = await service.gate.body(request)
    try:
        parsed = ChatRequest.model_validate(body)
    except ValidationError as err:
        raise from_validation(err) from None
    agent = service.agent(parsed.model)
    messages = _messages(parsed, service.gate.settings.max_messages)
    named = parsed.session_id or request.headers.get("x-session-id")
    release = service.gate.hold(owner)
    try:
        turn = await service.turn(
            owner, agent, messages, named=named, param="session_id", tools=_tools(parsed)
        )
    except BaseException:
        release()
        raise
    meta = {"id": f"chatcmpl-{uuid.uuid4().hex}", "created": int(time.time()), "model": agent.name}
    headers = {"x-session-id": turn.client_id}
    if parsed.stream:
        include_usage = bool(parsed.stream_options and parsed.stream_options.include_usage)
        return EventStream(_chunks(service, turn, meta, include_usage), release, headers)
    try:
        result = await unless_disconnected(request, turn.session.run(turn.prompt))
    except ClientGone:
        log.info("client left; run on session %s cancelled", turn.session.id)
        return Response(status_code=499)
    except Exception as err:
        raise _run_failed(turn, err) from None
    finally:
        release()
    calls = client_calls(result.tool_calls)
    content = result.reply if not calls else await said_with_calls(turn)
    await service.remember(turn, _answer(content, calls))
    message: dict[str, Any] = {"role": "assistant", "content": content or None, "refusal": None}
    if calls:
        message["tool_calls"] = _calls_json(calls)
    return JSONResponse(
        {
            **meta,
            "object": "chat.completion",
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": _finish_reason(result, calls),
                    "logprobs": None,
                }
            ],
            "usage": usage_json(result.total_usage),
            "session_id": turn.client_id,
            "agentframe": {"outcome": result.outcome.value, "turns": result.turns},
        },
        headers=headers,
    )


async def said_with_calls(turn: Turn) -> str:
    """What the model said with the calls it handed to the client (the run's reply is the
    parked call's placeholder): the session's last assistant entry."""
    entries = await turn.session.stack.store.context(turn.session.id)
    return next((e.content for e in reversed(entries) if e.kind is EntryKind.ASSISTANT), "")


def _run_failed(turn: Turn, err: BaseException) -> ApiError:
    log.warning("run on session %s failed: %s", turn.session.id, type(err).__name__)
    return ApiError(500, f"the run failed: {type(err).__name__}: {err}", code="run_failed")


async def _chunks(
    service: Service, turn: Turn, meta: dict[str, Any], include_usage: bool
) -> AsyncGenerator[bytes, None]:
    """The run as chat.completion.chunk events, then `[DONE]`. A server-side tool that
    finished (its result stored) is an SSE comment line, which clients skip."""

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}
        return sse({**meta, "object": "chat.completion.chunk", "choices": [choice]})

    yield chunk({"role": "assistant", "content": ""})
    said: list[str] = []
    gap = False
    async for event in events(turn.session, turn.prompt):
        if isinstance(event, Token):
            text = ("\n\n" + event.text) if gap and said else event.text
            gap = False
            said.append(text)
            yield chunk({"content": text})
        elif isinstance(event, ToolDone):
            if not event.record.result.meta.get("client_tool"):
                gap = True
                yield f": tool {event.record.call.name} done\n\n".encode()
        elif isinstance(event, Failed):
            error = _run_failed(turn, event.error)
            yield sse(error.body())
            break
        elif isinstance(event, Finished):
            result = event.result
            calls = client_calls(result.tool_calls)
            content = "".join(said)
            if calls:
                yield chunk({"tool_calls": _calls_json(calls, indexed=True)})
            elif not said and result.reply:  # a reply that was not streamed (a terminal tool)
                content = result.reply
                yield chunk({"content": content})
            await service.remember(turn, _answer(content, calls))
            yield chunk({}, _finish_reason(result, calls))
            if include_usage:
                usage = usage_json(result.total_usage)
                yield sse(
                    {**meta, "object": "chat.completion.chunk", "choices": [], "usage": usage}
                )
    yield b"data: [DONE]\n\n"
