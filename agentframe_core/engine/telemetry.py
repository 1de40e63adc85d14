"""OpenTelemetry spans and metrics of a run, in the GenAI semantic conventions.

The kernel depends on `opentelemetry-api` only: without an SDK every span is the API's
non-recording one and every instrument a no-op, so tracing costs nothing unless a plugin
(`agentframe-otel`) installs providers. Attributes are computed only for a recording span.
Prompts, replies and tool arguments are recorded only when content capture is on
(`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true` or `telemetry: {capture_content:
true}`), and always pass `redact_text` first.

Span names and attributes: https://opentelemetry.io/docs/specs/semconv/gen-ai/ (`invoke_agent
{agent}`, `chat {model}`, `execute_tool {tool}`), plus agentframe's own (`agentframe.*`) and
operations the conventions do not define (`retrieval`, `compaction`, `prompt`), named by
`agentframe.operation.name`.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from opentelemetry import metrics, trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

from ..contract.model import Message
from ..support.redact import redact_text

if TYPE_CHECKING:
    from ..contract.configtypes import Config
    from ..contract.llm import Completion, CompletionRequest
    from ..contract.protocols import Stack

__all__ = ["CAPTURE_ENV", "TelemetrySettings", "settings"]

#: The GenAI conventions' switch for recording prompts and replies.
CAPTURE_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
_CAPTURE_ON = {"true", "1", "yes", "span_only", "span_and_event"}

#: The conventions' advised buckets (gen-ai-metrics.md).
TOKEN_BUCKETS = [4.0**i for i in range(14)]
DURATION_BUCKETS = [0.01 * 2**i for i in range(14)]

_tracer = trace.get_tracer("agentframe")
_meter = metrics.get_meter("agentframe")
_token_usage = _meter.create_histogram(
    "gen_ai.client.token.usage",
    unit="{token}",
    description="Number of input and output tokens used.",
    explicit_bucket_boundaries_advisory=TOKEN_BUCKETS,
)
_operation_duration = _meter.create_histogram(
    "gen_ai.client.operation.duration",
    unit="s",
    description="GenAI operation duration.",
    explicit_bucket_boundaries_advisory=DURATION_BUCKETS,
)
_tool_duration = _meter.create_histogram(
    "agentframe.tool.duration",
    unit="s",
    description="Duration of one tool call.",
    explicit_bucket_boundaries_advisory=DURATION_BUCKETS,
)
_runs = _meter.create_counter(
    "agentframe.runs", unit="{run}", description="Runs ended, by outcome."
)


@dataclass(frozen=True, slots=True)
class TelemetrySettings:
    """The kernel's part of the `telemetry:` block: `enabled: false` bypasses every span
    and measurement; `capture_content` records prompts, replies and tool arguments."""

    enabled: bool = True
    capture_content: bool = False


_SETTINGS: dict[int, tuple[Config | None, str | None, TelemetrySettings]] = {}


def _block(config: Config | None) -> dict[str, Any]:
    raw = config.data.get("telemetry") if config is not None else None
    return raw if isinstance(raw, dict) else {}


def settings(stack: Stack) -> TelemetrySettings:
    """This stack's settings (its block read once per config); the environment variable
    wins."""
    config, env = stack.config, os.environ.get(CAPTURE_ENV)
    cached = _SETTINGS.get(id(config))
    if cached is not None and cached[0] is config and cached[1] == env:
        return cached[2]
    block = _block(config)
    capture = env.strip().lower() in _CAPTURE_ON if env else block.get("capture_content") is True
    found = TelemetrySettings(enabled=block.get("enabled") is not False, capture_content=capture)
    _SETTINGS[id(config)] = (config, env, found)
    return found


def _no_sdk() -> bool:
    """No provider is installed: every span would be the API's no-op, so none is started
    (the no-op path still costs microseconds a span, a run's worth adds up)."""
    return isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)


def _off(stack: Stack) -> bool:
    return _no_sdk() or not settings(stack).enabled


# -- spans -----------------------------------------------------------------------------------


def _provider(stack: Stack) -> str:
    config = stack.config
    return config.adapter.name if config is not None else type(stack.adapter).__name__


def _configured_model(stack: Stack) -> str:
    """The adapter's configured `model` option, when it has one (the request names none
    unless the agent does)."""
    config = stack.config
    model = getattr(config.adapter.options, "model", None) if config is not None else None
    return model if isinstance(model, str) else ""


def _content(value: Any) -> str:
    """JSON of captured content, every secret masked."""
    return redact_text(json.dumps(value, ensure_ascii=False, default=str))


@contextlib.contextmanager
def _span(name: str, kind: SpanKind = SpanKind.INTERNAL) -> Iterator[Span]:
    """A current span that records an escaping error as its status."""
    with _tracer.start_as_current_span(
        name, kind=kind, record_exception=False, set_status_on_exception=False
    ) as span:
        try:
            yield span
        except BaseException as err:
            if span.is_recording():
                span.set_status(Status(StatusCode.ERROR, redact_text(f"{err}")[:500]))
                span.set_attribute("error.type", type(err).__qualname__)
            raise


@contextlib.asynccontextmanager
async def run_span(
    stack: Stack, session_id: str, run_id: str, agent: str | None
) -> AsyncIterator[Span | None]:
    """`invoke_agent`: one run (an async context manager, to share the loop's `async
    with`)."""
    if _off(stack):
        yield None
        return
    with _span(f"invoke_agent {agent}" if agent else "invoke_agent") as span:
        if span.is_recording():
            span.set_attributes(
                {
                    "gen_ai.operation.name": "invoke_agent",
                    "gen_ai.provider.name": _provider(stack),
                    "gen_ai.conversation.id": session_id,
                    "agentframe.session.id": session_id,
                    "agentframe.run.id": run_id,
                }
            )
            if agent:
                span.set_attribute("gen_ai.agent.name", agent)
        yield span


def run_ended(stack: Stack, outcome: str, usage: Any, turns: int) -> None:
    """The run's outcome and tokens, on its span (the current one) and in the outcome
    counter."""
    if _off(stack):
        return
    span = trace.get_current_span()
    provider = _provider(stack)
    _runs.add(1, {"agentframe.run.outcome": str(outcome), "gen_ai.provider.name": provider})
    if span.is_recording():
        span.set_attributes(
            {
                "agentframe.run.outcome": str(outcome),
                "agentframe.run.turns": turns,
                "gen_ai.usage.input_tokens": usage.prompt_tokens,
                "gen_ai.usage.output_tokens": usage.completion_tokens,
                "agentframe.usage.cached_tokens": usage.cached_tokens,
            }
        )


@contextlib.contextmanager
def chat_span(stack: Stack, request: CompletionRequest, run_id: str) -> Iterator[ChatCall]:
    """`chat`: one model call; `ChatCall.done(completion)` records the reply."""
    on = settings(stack)
    if not on.enabled or _no_sdk():
        yield ChatCall(None, stack, request, False)
        return
    model = request.model or _configured_model(stack)
    with _span(f"chat {model}" if model else "chat", SpanKind.CLIENT) as span:
        call = ChatCall(span, stack, request, on.capture_content, model)
        if span.is_recording():
            span.set_attributes(
                {
                    "gen_ai.operation.name": "chat",
                    "gen_ai.provider.name": call.provider,
                    "agentframe.run.id": run_id,
                    "agentframe.session.id": str(request.metadata.get("session_id", "")),
                }
            )
            if model:
                span.set_attribute("gen_ai.request.model", model)
            if request.max_tokens is not None:
                span.set_attribute("gen_ai.request.max_tokens", request.max_tokens)
            if call.capture:
                span.set_attributes(
                    {
                        "gen_ai.input.messages": _content([_message(m) for m in request.messages]),
                        "gen_ai.tool.definitions": _content(
                            [
                                {
                                    "type": "function",
                                    "name": t.name,
                                    "description": t.description,
                                    "parameters": t.parameters,
                                }
                                for t in request.tools
                            ]
                        ),
                    }
                )
        try:
            yield call
        except BaseException as err:
            call.failed(err)
            raise


def _message(message: Any) -> dict[str, Any]:
    """A message in the conventions' shape (role and parts)."""
    parts: list[dict[str, Any]] = []
    if message.content:
        kind = "tool_call_response" if message.role == "tool" else "text"
        key = "response" if kind == "tool_call_response" else "content"
        part: dict[str, Any] = {"type": kind, key: message.content}
        if message.tool_call_id:
            part["id"] = message.tool_call_id
        parts.append(part)
    for call in message.tool_calls:
        parts.append(
            {"type": "tool_call", "id": call.id, "name": call.name, "arguments": call.arguments}
        )
    return {"role": message.role, "parts": parts}


class ChatCall:
    """One model call being traced: its span, and the metrics it records when it ends."""

    def __init__(
        self,
        span: Span | None,
        stack: Stack,
        request: CompletionRequest,
        capture: bool,
        model: str = "",
    ) -> None:
        self.span, self.request, self.capture, self.model = span, request, capture, model
        self.provider = _provider(stack) if span is not None else ""
        self.started = time.perf_counter()

    def _metric_attributes(self, model: str | None) -> dict[str, str]:
        found = {"gen_ai.operation.name": "chat", "gen_ai.provider.name": self.provider}
        if self.model:
            found["gen_ai.request.model"] = self.model
        if model:
            found["gen_ai.response.model"] = model
        return found

    def failed(self, err: BaseException) -> None:
        if self.span is None:
            return
        attributes = self._metric_attributes(None)
        attributes["error.type"] = type(err).__qualname__
        _operation_duration.record(time.perf_counter() - self.started, attributes)

    def done(self, completion: Completion) -> None:
        span = self.span
        if span is None:
            return
        usage = completion.usage
        attributes = self._metric_attributes(completion.model)
        _operation_duration.record(time.perf_counter() - self.started, attributes)
        if usage.prompt_tokens:
            _token_usage.record(usage.prompt_tokens, {**attributes, "gen_ai.token.type": "input"})
        if usage.completion_tokens:
            _token_usage.record(
                usage.completion_tokens, {**attributes, "gen_ai.token.type": "output"}
            )
        if not span.is_recording():
            return
        span.set_attributes(
            {
                "gen_ai.usage.input_tokens": usage.prompt_tokens,
                "gen_ai.usage.output_tokens": usage.completion_tokens,
                "gen_ai.usage.cache_read.input_tokens": usage.cached_tokens,
            }
        )
        if completion.model:
            span.set_attribute("gen_ai.response.model", completion.model)
        if completion.finish_reason:
            span.set_attribute("gen_ai.response.finish_reasons", [completion.finish_reason])
        if self.capture:
            output = _message(Message("assistant", completion.content, completion.tool_calls))
            output["finish_reason"] = completion.finish_reason or "stop"
            span.set_attribute("gen_ai.output.messages", _content([output]))


@contextlib.contextmanager
def tool_span(
    stack: Stack, name: str, call_id: str, arguments: dict[str, Any], run_id: str
) -> Iterator[ToolTrace]:
    """`execute_tool`: one tool call; `ToolTrace.done(result, seconds)` records its result."""
    on = settings(stack)
    if not on.enabled or _no_sdk():
        yield ToolTrace(None, name, False)
        return
    with _span(f"execute_tool {name}") as span:
        if span.is_recording():
            span.set_attributes(
                {
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": name,
                    "gen_ai.tool.call.id": call_id,
                    "gen_ai.tool.type": "function",
                    "agentframe.run.id": run_id,
                }
            )
            if on.capture_content:
                span.set_attribute("gen_ai.tool.call.arguments", _content(arguments))
        yield ToolTrace(span, name, on.capture_content)


@dataclass(slots=True)
class ToolTrace:
    span: Span | None
    name: str
    capture: bool

    def done(self, content: str, is_error: bool, seconds: float) -> None:
        span = self.span
        if span is None:
            return
        attributes: dict[str, Any] = {"gen_ai.tool.name": self.name}
        if is_error:
            attributes["error.type"] = "tool_error"
        _tool_duration.record(seconds, attributes)
        if not span.is_recording():
            return
        if is_error:
            span.set_status(Status(StatusCode.ERROR, redact_text(content)[:500]))
            span.set_attribute("error.type", "tool_error")
        if self.capture:
            span.set_attribute("gen_ai.tool.call.result", redact_text(content))


@contextlib.contextmanager
def step_span(stack: Stack, operation: str, name: str) -> Iterator[Span | None]:
    """One of agentframe's own steps: `retrieval`, `prompt` (assembling what a model call
    is sent)."""
    if _off(stack):
        yield None
        return
    with _span(name) as span:
        if span.is_recording():
            span.set_attribute("agentframe.operation.name", operation)
        yield span


def compaction_span(stack: Stack, started_ns: int, report: Any) -> None:
    """`compaction`: a context build that compacted, from its start to now."""
    if _off(stack):
        return
    span = _tracer.start_span("compaction", start_time=started_ns)
    if span.is_recording():
        span.set_attributes(
            {
                "agentframe.operation.name": "compaction",
                "agentframe.compaction.tokens_before": report.tokens_before,
                "agentframe.compaction.tokens_after": report.tokens_after,
                "agentframe.compaction.subsumed": report.subsumed,
            }
        )
    span.end()
