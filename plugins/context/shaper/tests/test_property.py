"""The issue's property: for any history of user, assistant and tool entries (1 to 20k
characters each) and any budget at least the pristine tail's size, the shaper's messages fit
the budget, keep every tool call with its result, keep the pristine tail verbatim, and leave
the stored entries unchanged."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from agentframe_shaper.plan import safe_cuts, tail_start
from agentframe_shaper.testing import context, prompt_tokens, shaper, stack_with
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from agentframe_core import Entry, EntryKind, MemoryStore, Message, Renderer
from agentframe_core.testing import check_well_formed

sizes = st.integers(min_value=1, max_value=20_000)
steps = st.one_of(
    st.tuples(st.just("user"), sizes),
    st.tuples(st.just("assistant"), sizes),
    st.tuples(st.just("tools"), st.lists(sizes, min_size=1, max_size=3)),
)
OPTIONS: dict[str, Any] = {
    "pristine_messages": 3,
    "pristine_tool_exchanges": 1,
    "lod_above_chars": 500,
    "stub_head_chars": 80,
    "summary_max_tokens": 64,
}


def conversation(plan: list[tuple[str, Any]]) -> list[Entry]:
    entries = [Entry(kind=EntryKind.USER, content="start")]
    for index, (kind, value) in enumerate(plan):
        if kind == "tools":
            entries.append(Entry(kind=EntryKind.ASSISTANT, content="let me look"))
            ids = [f"call-{index}-{n}" for n in range(len(value))]
            for call_id in ids:
                arguments = json.dumps({"q": "x" * (value[0] // 10)})
                entries.append(
                    Entry(
                        kind=EntryKind.TOOL_CALL,
                        content=arguments,
                        tool_call_id=call_id,
                        tool_name="probe",
                    )
                )
            for call_id, size in zip(ids, value, strict=True):
                entries.append(
                    Entry(
                        kind=EntryKind.TOOL_RESULT,
                        content="r" * size,
                        tool_call_id=call_id,
                        tool_name="probe",
                    )
                )
        else:
            entries.append(Entry(kind=EntryKind(kind), content=kind[0] * value))
    return entries


def pristine(entries: list[Entry], inline: int) -> list[Message]:
    start = tail_start(
        entries,
        safe_cuts(entries),
        OPTIONS["pristine_messages"],
        OPTIONS["pristine_tool_exchanges"],
    )
    renderer = Renderer(inline)
    renderer.feed(entries[start:])
    return renderer.view()


async def shape(entries: list[Entry], extra: int, system: str) -> None:
    probe = shaper(budget_tokens=1)
    stack = stack_with(probe)
    for entry in entries:
        await stack.store.append("s", entry)
    tail = pristine(entries, stack.limits.inline_result_chars)
    head = [Message("system", system)] if system else []
    floor = prompt_tokens(head + tail)
    stack.context = shaper(budget_tokens=floor + extra, **OPTIONS)

    ctx = context(stack)
    messages = await stack.context.build(ctx, system)
    event(f"compactions: {min(len(ctx.compactions), 2)}")
    event(f"stubbed: {any('characters; ' in m.content for m in messages)}")

    check_well_formed(messages, system)
    assert prompt_tokens(messages) <= floor + extra, "over the budget"
    assert messages[len(messages) - len(tail) :] == tail, "the pristine tail was changed"
    for message in messages:  # every call kept with its own result: no orphans, no gaps
        assert not message.content.startswith("[result of "), "a result lost its call"
        assert "[no result was recorded" not in message.content, "a call lost its result"
    assert isinstance(stack.store, MemoryStore)
    stored = {r.entry.id: r.entry for r in await stack.store.history("s")}
    assert all(stored[e.id] == e for e in entries), "a stored entry was changed"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    plan=st.lists(steps, max_size=30),
    extra=st.one_of(st.just(0), st.integers(min_value=0, max_value=60_000)),
    system=st.sampled_from(["", "You are terse."]),
)
def test_any_history_fits_any_budget_above_the_tail(
    plan: list[tuple[str, Any]], extra: int, system: str
) -> None:
    asyncio.run(shape(conversation(plan), extra, system))


async def grow(entries: list[Entry], budget: int) -> None:
    """Build after every entry, as a session does: each build renders only what is new, and
    must send exactly what rendering its head and tail afresh would."""
    probe = shaper(budget_tokens=budget, **OPTIONS)
    stack = stack_with(probe)
    for entry in entries:
        await stack.store.append("s", entry)
        messages = await probe.build(context(stack), "")
        check_well_formed(messages, "")
        current = await stack.store.context("s")
        pristine_messages, exchanges = (
            OPTIONS["pristine_messages"],
            OPTIONS["pristine_tool_exchanges"],
        )
        start = tail_start(current, safe_cuts(current), pristine_messages, exchanges)
        split = len(probe.last_sent) - (len(current) - start)
        afresh = []
        for part in (probe.last_sent[:split], probe.last_sent[split:]):
            renderer = Renderer(stack.limits.inline_result_chars)
            renderer.feed(part)
            afresh += renderer.view()
        assert messages == afresh, "an incremental render differs from a fresh one"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plan=st.lists(steps, max_size=20), budget=st.integers(min_value=2_000, max_value=30_000))
def test_builds_as_the_session_grows_render_what_a_fresh_render_would(
    plan: list[tuple[str, Any]], budget: int
) -> None:
    asyncio.run(grow(conversation(plan), budget))
