"""The kernel's spans as the SDK records them: the tree of a run, the GenAI attributes, and
content captured only when asked for, with its secrets masked."""

from __future__ import annotations

import json
from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from agentframe_core import (
    CompactionReport,
    FunctionToolset,
    MemoryStore,
    Message,
    Session,
    Snippet,
    Stack,
    VerbatimBuilder,
    tool,
)
from agentframe_core.testing import ScriptedAdapter

SECRET = "sk-live-0123456789abcdef"
CAPTURE_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"


@tool(writes=False)
async def lookup(key: str) -> str:
    """Look a key up."""
    return f"value of {key}; password={SECRET}"


def _stack() -> Stack:
    script: list[Any] = [
        {
            "tool_calls": [{"name": "lookup", "arguments": {"key": f"api_key: {SECRET}"}}],
            "usage": {"prompt_tokens": 40, "completion_tokens": 7, "cached_tokens": 30},
        },
        {"content": "done", "usage": {"prompt_tokens": 60, "completion_tokens": 2}},
    ]
    return Stack(
        adapter=ScriptedAdapter(script),
        store=MemoryStore(),
        context=VerbatimBuilder(),
        tools=[FunctionToolset([lookup])],
    )


async def _run(span_exporter: InMemorySpanExporter, prompt: str) -> tuple[Any, list[ReadableSpan]]:
    span_exporter.clear()
    async with _stack() as stack:
        result = await Session(stack, system="You help.").run(prompt)
    return result, list(span_exporter.get_finished_spans())


def _children(spans: list[ReadableSpan], parent: ReadableSpan) -> list[str]:
    assert parent.context is not None
    return [
        s.name for s in spans if s.parent is not None and s.parent.span_id == parent.context.span_id
    ]


async def test_a_run_is_a_tree_of_genai_spans(span_exporter: InMemorySpanExporter) -> None:
    result, spans = await _run(span_exporter, "look it up")
    (root,) = [s for s in spans if s.parent is None]
    assert root.name == "invoke_agent"
    assert _children(spans, root) == [
        "prompt system",
        "prompt context",
        "chat",
        "execute_tool lookup",
        "prompt context",
        "chat",
    ]
    attributes = dict(root.attributes or {})
    assert attributes["gen_ai.operation.name"] == "invoke_agent"
    assert attributes["agentframe.run.id"] == result.run_id != ""
    assert attributes["agentframe.session.id"] == result.session_id
    assert attributes["gen_ai.conversation.id"] == result.session_id
    assert attributes["agentframe.run.outcome"] == "completed"
    assert attributes["gen_ai.usage.input_tokens"] == 100
    assert attributes["agentframe.usage.cached_tokens"] == 30

    first_chat = next(s for s in spans if s.name == "chat")
    chat = dict(first_chat.attributes or {})
    assert first_chat.kind is trace.SpanKind.CLIENT
    assert chat["gen_ai.operation.name"] == "chat"
    assert chat["gen_ai.provider.name"] == "ScriptedAdapter"
    assert chat["gen_ai.usage.input_tokens"] == 40
    assert chat["gen_ai.usage.output_tokens"] == 7
    assert chat["gen_ai.usage.cache_read.input_tokens"] == 30
    assert chat["gen_ai.response.finish_reasons"] == ("tool_calls",)

    call = dict(next(s for s in spans if s.name.startswith("execute_tool")).attributes or {})
    (record,) = result.tool_calls
    assert call["gen_ai.tool.name"] == "lookup"
    assert call["gen_ai.tool.call.id"] == record.call.id
    assert call["agentframe.run.id"] == result.run_id

    # content capture is off: no prompt, reply or tool argument anywhere
    everything = json.dumps([dict(s.attributes or {}) for s in spans], default=str)
    assert "look it up" not in everything and "api_key" not in everything
    assert SECRET not in everything and "gen_ai.input.messages" not in everything


async def test_captured_content_is_redacted(
    span_exporter: InMemorySpanExporter, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(CAPTURE_ENV, "true")
    _, spans = await _run(span_exporter, f"look up Bearer {SECRET} please")
    chat = dict(next(s for s in spans if s.name == "chat").attributes or {})
    sent = json.loads(str(chat["gen_ai.input.messages"]))
    assert [m["role"] for m in sent] == ["system", "user"]
    assert "look up Bearer *** please" in sent[1]["parts"][0]["content"]
    tools = json.loads(str(chat["gen_ai.tool.definitions"]))
    assert tools[0]["name"] == "lookup" and tools[0]["type"] == "function"
    reply = json.loads(str(chat["gen_ai.output.messages"]))
    assert reply[0]["parts"][0]["type"] == "tool_call"
    call = dict(next(s for s in spans if s.name.startswith("execute_tool")).attributes or {})
    assert "api_key: ***" in str(call["gen_ai.tool.call.arguments"])
    assert "password=***" in str(call["gen_ai.tool.call.result"])
    everything = json.dumps([dict(s.attributes or {}) for s in spans], default=str)
    assert SECRET not in everything


class _Finder:
    async def retrieve(self, query: str, *, ctx: Any, budget_tokens: int) -> list[Snippet]:
        return [Snippet("a fact", "notes.md"), Snippet("another", "notes.md")]


class _Compacting(VerbatimBuilder):
    """Reports a compaction on its first build, as a compacting builder does."""

    async def build(self, ctx: Any, system: str) -> list[Message]:
        if not ctx.compactions:
            ctx.report_compaction(CompactionReport("summary", 4, 900, 200))
        return await super().build(ctx, system)


async def test_retrieval_and_compaction_are_spans(span_exporter: InMemorySpanExporter) -> None:
    span_exporter.clear()
    stack = Stack(
        adapter=ScriptedAdapter(["done"]),
        store=MemoryStore(),
        context=_Compacting(),
        retrievers=[_Finder()],
    )
    async with stack:
        await Session(stack, system="You help.").run("what do we know?")
    spans = list(span_exporter.get_finished_spans())
    (retrieval,) = [s for s in spans if s.name == "retrieval _Finder"]
    assert dict(retrieval.attributes or {}) == {
        "agentframe.operation.name": "retrieval",
        "agentframe.retrieval.snippets": 2,
    }
    (compaction,) = [s for s in spans if s.name == "compaction"]
    (context,) = [s for s in spans if s.name == "prompt context"]
    assert compaction.parent is not None and context.context is not None
    assert compaction.parent.span_id == context.context.span_id
    attributes = dict(compaction.attributes or {})
    assert attributes["agentframe.compaction.tokens_before"] == 900
    assert attributes["agentframe.compaction.tokens_after"] == 200
    assert attributes["agentframe.compaction.subsumed"] == 4
