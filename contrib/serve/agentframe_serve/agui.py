"""AG-UI: `POST /ag-ui/{agent}` takes a `RunAgentInput` and answers with the run as AG-UI
events over SSE, built with the `ag-ui-protocol` package's models.

The thread is the session (`threadId`, per key). A run is RUN_STARTED, then its steps (a
new one each time the model speaks after its tools ran: STEP_STARTED/STEP_FINISHED) holding
the model's text (TEXT_MESSAGE_START/CONTENT/END) and the server-side tool calls it made
(TOOL_CALL_START/ARGS/END and TOOL_CALL_RESULT, sent when the call has run), then
RUN_FINISHED or RUN_ERROR. The client's tools (`tools`) come
back as TOOL_CALL_START/ARGS/END without a result, listed in RUN_FINISHED's
`pendingToolCallIds`; the next run's tool messages carry their results. What parts report
(a sub-agent's progress) and compactions are CUSTOM events `agentframe.<kind>`, and so is
the time each server-side call took (`agentframe.tool_time`) and each question a part asks
the person (`agentframe.question`, answered with `POST /v1/questions/{id}`)."""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import AsyncGenerator
from dataclasses import asdict
from typing import Any

from ag_ui.core import (
    AssistantMessage,
    BaseEvent,
    CustomEvent,
    DeveloperMessage,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedSuccessOutcome,
    RunStartedEvent,
    StepFinishedEvent,
    StepStartedEvent,
    SystemMessage,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    TokenUsage,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
    ToolMessage,
    UserMessage,
)
from ag_ui.encoder import EventEncoder
from pydantic import ValidationError
from starlette.requests import Request

from .chat import text_of
from .clienttools import client_calls, client_tool, sent_calls
from .conversations import ClientMessage
from .errors import ApiError, from_validation
from .questions import question_json
from .runs import Asked, Compacted, Failed, Finished, Progress, Token, ToolDone, events
from .service import Service, Turn
from .wire import EventStream

__all__ = ["agui_run"]

log = logging.getLogger("agentframe.serve")


def _text(content: Any, path: str) -> str:
    """A message's content as text: a string, or its text parts (as the chat API reads)."""
    if isinstance(content, list):
        content = [part.model_dump() for part in content]
    return text_of(content, path)


def _messages(run: RunAgentInput, cap: int) -> list[ClientMessage]:
    if len(run.messages) > cap:
        raise ApiError(400, f"messages: more than {cap} (serve.max_messages)", param="messages")
    out = []
    for i, message in enumerate(run.messages):
        path = f"messages[{i}]"
        if isinstance(message, UserMessage):
            out.append(ClientMessage("user", _text(message.content, f"{path}.content"), path))
        elif isinstance(message, SystemMessage | DeveloperMessage):
            out.append(ClientMessage("system", message.content, path))
        elif isinstance(message, AssistantMessage):
            calls = sent_calls(message.tool_calls or [], f"{path}.toolCalls")
            out.append(ClientMessage("assistant", message.content or "", path, tuple(calls)))
        elif isinstance(message, ToolMessage):
            content = _text(message.content, f"{path}.content")
            out.append(ClientMessage("tool", content, path, tool_call_id=message.tool_call_id))
        # activity and reasoning messages are the UI's own: not part of the conversation
    return out


async def agui_run(service: Service, request: Request) -> EventStream:
    owner = service.gate.admit(request)
    agent = service.agent(request.path_params["agent"], "agent")
    body = await service.gate.body(request)
    try:
        run = RunAgentInput.model_validate(body)
    except ValidationError as err:
        raise from_validation(err) from None
    messages = _messages(run, service.gate.settings.max_messages)
    tools = [
        client_tool(t.name, t.description, t.parameters or {"type": "object", "properties": {}})
        for t in run.tools or []
    ]
    release = service.gate.hold(owner)
    try:
        turn = await service.turn(
            owner, agent, messages, named=run.thread_id, param="threadId", tools=tools
        )
    except BaseException:
        release()
        raise
    headers = {"x-session-id": turn.client_id}
    return EventStream(_events(service, turn, run), release, headers)


async def _events(service: Service, turn: Turn, run: RunAgentInput) -> AsyncGenerator[bytes, None]:
    encoder = EventEncoder()

    def out(event: BaseEvent) -> bytes:
        return encoder.encode(event).encode()

    yield out(RunStartedEvent(thread_id=run.thread_id, run_id=run.run_id))
    step, message_id = 1, ""
    said: list[str] = []
    yield out(StepStartedEvent(step_name="turn 1"))
    after_tools = False
    async for item in events(turn.session, turn.prompt, asking=True):
        if isinstance(item, Token) and not item.text:
            continue
        if isinstance(item, Token) and after_tools:  # the model speaks again: a new turn
            yield out(StepFinishedEvent(step_name=f"turn {step}"))
            step += 1
            yield out(StepStartedEvent(step_name=f"turn {step}"))
            after_tools = False
        if isinstance(item, Token):
            if not message_id:
                message_id = f"msg_{uuid.uuid4().hex}"
                yield out(TextMessageStartEvent(message_id=message_id, role="assistant"))
            said.append(item.text)
            yield out(TextMessageContentEvent(message_id=message_id, delta=item.text))
        elif isinstance(item, ToolDone):
            if message_id:
                yield out(TextMessageEndEvent(message_id=message_id))
            record, parent = item.record, message_id or None
            message_id, after_tools = "", True
            call = record.call
            yield out(
                ToolCallStartEvent(
                    tool_call_id=call.id, tool_call_name=call.name, parent_message_id=parent
                )
            )
            arguments = json.dumps(call.arguments, ensure_ascii=False)
            yield out(ToolCallArgsEvent(tool_call_id=call.id, delta=arguments))
            yield out(ToolCallEndEvent(tool_call_id=call.id))
            if not record.result.meta.get("client_tool"):
                yield out(
                    ToolCallResultEvent(
                        message_id=f"msg_{uuid.uuid4().hex}",
                        tool_call_id=call.id,
                        content=record.result.content,
                        role="tool",
                    )
                )
            seconds = {"tool_call_id": call.id, "seconds": round(record.seconds, 6)}
            yield out(CustomEvent(name="agentframe.tool_time", value=seconds))
        elif isinstance(item, Progress):
            yield out(CustomEvent(name=f"agentframe.{item.kind}", value=item.data))
        elif isinstance(item, Asked):
            question_id = service.questions.add(turn.owner, item.question, item.answer)
            value = question_json(question_id, item.question)
            yield out(CustomEvent(name="agentframe.question", value=value))
        elif isinstance(item, Compacted):
            yield out(CustomEvent(name="agentframe.compaction", value=asdict(item.report)))
        elif isinstance(item, Failed):
            if message_id:
                yield out(TextMessageEndEvent(message_id=message_id))
            log.warning("run on session %s failed: %s", turn.session.id, type(item.error).__name__)
            error = ApiError(500, f"the run failed: {type(item.error).__name__}: {item.error}")
            yield out(RunErrorEvent(message=error.body()["error"]["message"], code="run_failed"))
        elif isinstance(item, Finished):
            if message_id:
                yield out(TextMessageEndEvent(message_id=message_id))
            yield out(StepFinishedEvent(step_name=f"turn {step}"))
            result = item.result
            calls = client_calls(result.tool_calls)
            usage = result.total_usage
            await service.remember(
                turn, ClientMessage("assistant", "".join(said), "", tuple(calls))
            )
            yield out(
                RunFinishedEvent(
                    thread_id=run.thread_id,
                    run_id=run.run_id,
                    result={"reply": result.reply, "outcome": result.outcome.value},
                    outcome=RunFinishedSuccessOutcome(
                        pending_tool_call_ids=[c.id for c in calls] or None
                    ),
                    usage=[
                        TokenUsage(
                            input_tokens=usage.prompt_tokens,
                            output_tokens=usage.completion_tokens,
                            total_tokens=usage.total_tokens,
                            cached_input_tokens=usage.cached_tokens,
                        )
                    ],
                )
            )
