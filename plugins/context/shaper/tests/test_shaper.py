"""The shaper's behaviour over a growing session: headroom, stubs before compaction,
load_message, reporting, and where the budget comes from."""

from __future__ import annotations

import dataclasses

import pytest
from agentframe_shaper import LoadMessageTools, ShaperOptions, TiktokenEstimator
from agentframe_shaper.testing import context, prompt_tokens, shaper, stack_with
from pydantic import ValidationError

from agentframe_core import (
    Capabilities,
    CompactionReport,
    CompletionRequest,
    Entry,
    EntryKind,
    MemoryStore,
    Message,
    RunResult,
    Session,
    Stack,
    ToolCall,
)
from agentframe_core.testing import ScriptedAdapter


def user(text: str) -> Entry:
    return Entry(kind=EntryKind.USER, content=text)


def answer(text: str) -> Entry:
    return Entry(kind=EntryKind.ASSISTANT, content=text)


def exchange(call_id: str, result: str) -> list[Entry]:
    return [
        Entry(kind=EntryKind.ASSISTANT, content=""),
        Entry(kind=EntryKind.TOOL_CALL, content="{}", tool_call_id=call_id, tool_name="read"),
        Entry(kind=EntryKind.TOOL_RESULT, content=result, tool_call_id=call_id, tool_name="read"),
    ]


def is_prefix(before: list[Message], after: list[Message]) -> bool:
    return after[: len(before)] == before


async def test_the_prefix_is_left_alone_until_the_line_then_reshaped_once() -> None:
    budget, headroom = 3000, 600
    built = shaper(budget_tokens=budget, headroom_tokens=headroom, pristine_messages=4)
    stack = stack_with(built)
    ctx, previous, reshapes = context(stack), list[Message](), 0
    for turn in range(80):
        for entry in (
            user(f"question {turn} " + "q" * (150 + 97 * (turn % 5))),
            answer(f"answer {turn} " + "a" * 60),
        ):
            await stack.store.append("s", entry)
            messages = await built.build(ctx, "sys")
            size = prompt_tokens(messages)
            assert size <= budget
            if is_prefix(previous, messages):
                assert prompt_tokens(previous) <= budget - headroom, "kept a prefix over the line"
            else:
                reshapes += 1
                assert size <= budget - 2 * headroom, "a reshape must buy a headroom of runway"
            previous = messages
    # ~125 tokens a turn; each compaction leaves the tail and a summary, ~330 tokens
    assert reshapes == len(ctx.compactions) == 4
    for report in ctx.compactions:
        assert report.tokens_before > budget - headroom >= budget - 2 * headroom
        assert report.tokens_after <= budget - 2 * headroom


async def test_stubs_come_before_compaction_and_name_load_message() -> None:
    built = shaper(budget_tokens=2500, pristine_messages=2, pristine_tool_exchanges=1)
    stack = stack_with(built)
    stack.tools = [LoadMessageTools()]
    entries = [user("read the files")]
    for n in range(4):
        entries += exchange(f"c{n}", f"file {n}\n" + "x" * 3000)
    entries += [answer("read them all"), user("and now?")]
    for entry in entries:
        await stack.store.append("s", entry)
    ctx = context(stack)
    messages = await built.build(ctx, "")
    assert ctx.compactions == []
    stubbed = [m for m in messages if m.role == "tool" and "load_message" in m.content]
    assert stubbed and all(len(m.content) < 400 for m in stubbed)
    assert messages[-3].content.endswith("x" * 3000), "the last exchange stays whole"
    assert await stack.store.context("s") == entries
    loaded = await stack.tools[0].dispatch(
        ToolCall("l1", "load_message", {"id": entries[3].id}), ctx
    )
    assert loaded.content.startswith("file 0\n") and "offset 4000" not in loaded.content


async def test_load_message_pages_and_finds_compacted_entries() -> None:
    stack = Stack(adapter=ScriptedAdapter(), store=MemoryStore(), context=shaper())
    tool, ctx = LoadMessageTools(), context(stack)
    long = user("y" * 9000)
    await stack.store.append("s", long)
    first = await tool.dispatch(ToolCall("1", "load_message", {"id": long.id}), ctx)
    assert first.content.startswith("y" * 4000) and "offset 4000" in first.content
    last = await tool.dispatch(ToolCall("2", "load_message", {"id": long.id, "offset": 8000}), ctx)
    assert last.content == "y" * 1000
    missing = await tool.dispatch(ToolCall("3", "load_message", {"id": "nope"}), ctx)
    assert missing.is_error


async def test_compactions_reach_the_turn_result_and_the_callback() -> None:
    built = shaper(budget_tokens=900, pristine_messages=2, summary_max_tokens=40)
    adapter = ScriptedAdapter(["Noted."], cycle=True)
    stack = Stack(adapter=adapter, store=MemoryStore(), context=built)
    session = Session(stack, "s", system="sys")
    seen: list[CompactionReport] = []
    results: list[RunResult] = []
    for turn in range(12):
        results.append(await session.run(f"fact {turn}: " + "f" * 600, on_compaction=seen.append))
    compactions = [c for r in results for c in r.compactions]
    assert compactions and seen == compactions
    report = compactions[0]
    assert report.subsumed >= 2 and report.tokens_before > 900 - 225 > report.tokens_after > 0
    assert results[-1].window_tokens > 0
    summaries = [r for r in adapter.requests if r.max_tokens == 40]
    assert len(summaries) == len(compactions)
    kept = await stack.store.context("s")
    assert kept[0].kind is EntryKind.COMPACTION and kept[0].content == "Noted."
    assert all(prompt_tokens(r.messages) <= 900 for r in adapter.requests)


async def _summary_after_a_turn(**options: object) -> tuple[CompletionRequest, CompletionRequest]:
    """The first summary request of a growing session, and the turn's request before it."""
    built = shaper(budget_tokens=2000, pristine_messages=2, summary_max_tokens=40, **options)
    adapter = ScriptedAdapter(["Noted."], cycle=True)
    session = Session(Stack(adapter=adapter, store=MemoryStore(), context=built), "s", system="sys")
    for turn in range(30):
        await session.run(f"fact {turn}: " + "f" * 600)
        requests = adapter.requests
        for index, request in enumerate(requests):
            if request.max_tokens == 40:
                return requests[index - 1], request
    raise AssertionError("no compaction in 30 turns")


async def test_a_summary_continues_the_prompt_the_server_has_cached() -> None:
    turn, summary = await _summary_after_a_turn()
    assert is_prefix(turn.messages, summary.messages)  # all of it from the cache
    follow_up = summary.messages[-1]
    assert follow_up.role == "user" and follow_up.content.startswith("Summarise our conversation")
    assert "except its last 2 messages" in follow_up.content


async def test_another_summary_model_gets_a_transcript_of_its_own() -> None:
    _, summary = await _summary_after_a_turn(summary_model="small")
    assert summary.model == "small" and summary.messages[0].content.startswith("You compress")


async def test_the_budget_comes_from_the_options_else_the_adapter() -> None:
    adapter = ScriptedAdapter()
    stack = stack_with(shaper(), adapter)
    assert await shaper(budget_tokens=1234).budget(context(stack)) == 1234
    assert await shaper(context_window=4096, reserve=96).budget(context(stack)) == 4000
    assert await shaper().budget(context(stack)) == 8192 - 512  # nothing known: the fallback
    adapter._capabilities = dataclasses.replace(Capabilities(), context_window=2048)
    assert await shaper(reserve=256).budget(context(stack)) == 1792

    async def fetch_context_window() -> int:
        return 1024

    adapter._capabilities = Capabilities()
    adapter.fetch_context_window = fetch_context_window  # type: ignore[attr-defined]
    assert await shaper(reserve=256).budget(context(stack)) == 768


async def test_tiktoken_counts_with_openais_encoding_offline() -> None:
    pytest.importorskip("bpe_openai")
    estimator = TiktokenEstimator("gpt-4o")
    assert await estimator.count(["Hello world", "", "<|endoftext|>"]) == [2, 0, 7]
    with pytest.raises(ValidationError, match="no OpenAI encoding"):
        ShaperOptions(estimator="tiktoken", tokenizer_model="no-such-model")
