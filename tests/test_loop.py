"""The agent loop, end to end on the kernel's reference parts and the scripted adapter."""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
from typing import Any

import pytest
from stacks import call

from agentframe_core import Entry, EntryKind, RunContext, ToolResult, tool
from agentframe_core.cli.run import result_json
from agentframe_core.engine.session import Outcome, Session


@tool
async def add(a: float, b: float) -> float:
    """Add two numbers."""
    return a + b


@tool(terminal=True)
async def finish(answer: str) -> str:
    """Deliver the final answer."""
    return answer


def roles(messages: list[Any]) -> list[str]:
    return [m.role for m in messages]


async def test_tool_call_then_answer(make_stack):
    stack = make_stack([call("add", a=2, b=3), "It is 5."], [add])
    result = await Session(stack).run("2+3?")
    assert result.outcome is Outcome.COMPLETED
    assert result.reply == "It is 5."
    assert result.turns == 2
    assert [(r.call.name, r.result.content) for r in result.tool_calls] == [("add", "5.0")]
    last = stack.adapter.requests[-1].messages
    assert roles(last) == ["system", "user", "assistant", "tool"]
    assert last[2].tool_calls[0].id == last[3].tool_call_id


async def test_turn_boundary_coalesces(make_stack):
    """3 queued messages + 1 lifted async result are answered in ONE model call."""
    stack = make_stack(["All answered."])
    session = Session(stack)
    for text in ("one", "two", "three"):
        await session.send(text)
    await stack.store.enqueue(
        session.id,
        Entry(kind=EntryKind.TOOL_RESULT, content="lifted", tool_call_id="c1", tool_name="job"),
    )
    result = await session.run()
    assert result.claimed == 4
    assert result.turns == 1 and len(stack.adapter.requests) == 1
    contents = [m.content for m in stack.adapter.requests[0].messages[1:]]
    assert contents[:3] == ["one", "two", "three"]
    assert "lifted" in contents[3]


async def test_forced_terminal_tool(make_stack):
    stack = make_stack([call("finish", answer="done!"), "never used"], [finish])
    result = await Session(stack).run("go")
    assert result.outcome is Outcome.TERMINAL_TOOL
    assert result.reply == "done!"
    assert result.turns == 1


async def test_max_turns_is_an_outcome(make_stack):
    stack = make_stack([call("add", a=1, b=1), call("add", a=1, b=2)], [add], max_turns=3)
    stack.adapter.cycle = True
    result = await Session(stack).run("loop")
    assert result.outcome is Outcome.MAX_TURNS
    assert result.turns == 3


async def test_repetition_guard(make_stack):
    stack = make_stack([call("add", a=1, b=2)], [add], max_repeats=3, max_turns=50)
    stack.adapter.cycle = True
    result = await Session(stack).run("again and again")
    assert result.outcome is Outcome.REPEATING
    assert result.turns == 3
    nudges = [m for m in stack.adapter.requests[-1].messages if "Do not call it again" in m.content]
    assert len(nudges) == 1  # the model was told once, after the first repeat


async def test_an_answer_ends_a_streak_of_identical_calls(make_stack):
    """Messages that arrive while the model answers are answered in the same run; asking the
    same tool again for each is not a loop (with 8 processes on one session, it stopped runs
    as `repeating`)."""
    answer = {"content": "done", "delay": 0.1}
    stack = make_stack([call("add", a=1, b=2), answer] * 3, [add], max_repeats=2)
    session = Session(stack)
    run = asyncio.create_task(session.run("first"))
    for question, writing in (("second", 2), ("third", 4)):
        while len(stack.adapter.requests) < writing and not run.done():  # the model answers
            await asyncio.sleep(0.001)
        await session.send(question)
    result = await run
    assert result.outcome is Outcome.COMPLETED and result.turns == 6, result.outcome


async def test_hanging_tool_times_out(make_stack):
    @tool(timeout=0.05)
    async def hang() -> str:
        """Never returns."""
        await asyncio.sleep(3600)
        return "unreachable"

    stack = make_stack([call("hang"), "gave up"], [hang])
    result = await Session(stack).run("hang")
    record = result.tool_calls[0]
    assert record.result.is_error
    assert "timed out after 0.05 s" in record.result.content
    assert result.reply == "gave up"


async def test_raising_tool_becomes_a_safe_error(make_stack, caplog):
    @tool
    async def boom() -> str:
        """Raises."""
        raise RuntimeError("secret internals")

    caplog.set_level(logging.DEBUG, logger="agentframe")
    stack = make_stack([call("boom"), "sorry"], [boom])
    result = await Session(stack).run("boom")
    content = result.tool_calls[0].result.content
    assert content == "tool boom failed: RuntimeError: secret internals"
    assert "Traceback" not in content
    assert "Traceback" in caplog.text  # the stack trace goes to the debug log (-vv)


async def test_invalid_arguments_go_back_to_the_model(make_stack):
    ran = []

    @tool
    async def echo(n: int) -> int:
        """Echo."""
        ran.append(n)
        return n

    stack = make_stack([call("echo", n="seven"), call("echo", n=7), "ok"], [echo])
    result = await Session(stack).run("echo")
    first, second = result.tool_calls
    assert first.result.is_error and "n: Input should be a valid integer" in first.result.content
    assert second.result.content == "7"
    assert ran == [7]
    tool_messages = [m for m in stack.adapter.requests[1].messages if m.role == "tool"]
    assert "Input should be a valid integer" in tool_messages[0].content


async def test_unknown_tool(make_stack):
    stack = make_stack([call("nope"), "fine"], [add])
    result = await Session(stack).run("x")
    assert result.tool_calls[0].result.content == "unknown tool 'nope'; available: add"


async def test_bounded_concurrency(make_stack):
    running = peak = 0

    @tool
    async def slow(i: int) -> int:
        """Sleeps."""
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await asyncio.sleep(0.02)
        running -= 1
        return i

    reply = {"tool_calls": [{"name": "slow", "arguments": {"i": i}} for i in range(6)]}
    stack = make_stack([reply, "done"], [slow], max_parallel_tools=2)
    result = await Session(stack).run("go")
    assert peak == 2
    assert [r.result.content for r in result.tool_calls] == [str(i) for i in range(6)]
    messages = stack.adapter.requests[1].messages
    assert roles(messages) == ["system", "user", "assistant"] + ["tool"] * 6


async def test_cancellation_reaches_running_tools_and_leaves_no_dangling_call(make_stack):
    started, cancelled = asyncio.Event(), asyncio.Event()

    @tool
    async def long() -> str:
        """Runs long."""
        started.set()
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "unreachable"

    stack = make_stack([call("long"), "after cancel"], [long])
    session = Session(stack)
    task = asyncio.create_task(session.run("start"))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert cancelled.is_set()
    entries = await stack.store.context(session.id)
    calls = {e.tool_call_id for e in entries if e.kind is EntryKind.TOOL_CALL}
    results = {e.tool_call_id: e for e in entries if e.kind is EntryKind.TOOL_RESULT}
    assert calls and calls == set(results)
    assert results[calls.pop()].meta.get("cancelled") is True
    # the session is still usable: the next turn sends a well-formed context
    result = await session.run("again")
    assert result.reply == "after cancel"
    assert roles(stack.adapter.requests[-1].messages) == [
        "system",
        "user",
        "assistant",
        "tool",
        "user",
    ]


async def test_large_results_are_shown_head_and_tail_but_stored_whole(make_stack):
    big = "A" * 500 + "MIDDLE" + "Z" * 500

    @tool
    async def dump() -> str:
        """Big output."""
        return big

    stack = make_stack([call("dump"), "seen"], [dump], inline_result_chars=100)
    session = Session(stack)
    await session.run("dump")
    shown = next(m for m in stack.adapter.requests[1].messages if m.role == "tool").content
    assert shown.startswith("A" * 50) and shown.endswith("Z" * 50)
    assert "MIDDLE" not in shown and "characters omitted" in shown
    stored = [e for e in await stack.store.context(session.id) if e.kind is EntryKind.TOOL_RESULT]
    assert stored[0].content == big


async def test_pending_result_is_parked_then_lifted(make_stack):
    @tool
    async def background(job: str) -> ToolResult:
        """Starts a job."""
        return ToolResult("", pending=True)

    stack = make_stack([call("background", job="x"), "started", "job finished: 42"], [background])
    session = Session(stack)
    first = await session.run("start it")
    assert first.reply == "started"
    call_id = first.tool_calls[0].call.id
    placeholder = next(m for m in stack.adapter.requests[1].messages if m.role == "tool")
    assert "[pending]" in placeholder.content
    await stack.store.enqueue(
        session.id,
        Entry(
            kind=EntryKind.TOOL_RESULT, content="42", tool_call_id=call_id, tool_name="background"
        ),
    )
    second = await session.run()
    assert second.claimed == 1 and second.turns == 1
    last = stack.adapter.requests[-1].messages
    assert last[-1].role == "user" and "42" in last[-1].content
    assert second.reply == "job finished: 42"


async def test_two_assistant_messages_never_follow_each_other(make_stack):
    stack = make_stack(["first answer", "second answer"])
    session = Session(stack)
    await session.run("q1")
    await session.inject(Entry(kind=EntryKind.ASSISTANT, content="an injected aside"))
    await session.run("q2")
    messages = stack.adapter.requests[-1].messages
    assert all(not (a.role == b.role == "assistant") for a, b in itertools.pairwise(messages))
    assert "first answer\n\nan injected aside" in [m.content for m in messages]


async def test_streaming_tokens_and_usage(make_stack):
    stack = make_stack(
        [
            {**call("add", a=1, b=2), "usage": {"prompt_tokens": 100, "completion_tokens": 10}},
            {
                "content": "three it is",
                "usage": {"prompt_tokens": 130, "completion_tokens": 5, "cached_tokens": 100},
            },
        ],
        [add],
    )
    tokens: list[str] = []
    session = Session(stack)
    result = await session.run("1+2", on_token=tokens.append)
    assert "".join(tokens) == "three it is"
    assert result.usage.total_tokens == 245
    assert result.cached_tokens == 100
    assert result.window_tokens == 135
    assert result.session_usage.total_tokens == 245
    # a new Session object on the same store continues the session's total
    stack.adapter.replies.append("again")
    again = await Session(stack, session.id).run("more")
    assert again.session_usage.total_tokens == 245


async def test_text_tool_calling_with_reprompt_on_parse_error(make_stack):
    replies = [
        '```json\n{"tool": "add", "args": {"a": 2, "b": 3}}\n```',
        '{"tool": "add", "args": {"a": 1,',  # truncated JSON: salvageable, re-ask
        '{"tool": "add", "args": {"a": 5, "b": 1}}',
        "The answers are 5 and 6.",
    ]
    stack = make_stack(replies, [add], native_tools=False)
    result = await Session(stack).run("sums")
    assert result.outcome is Outcome.COMPLETED
    assert result.reply == "The answers are 5 and 6."
    assert [r.result.content for r in result.tool_calls] == ["5.0", "6.0"]
    requests = stack.adapter.requests
    assert requests[0].tools == [] and requests[0].response_schema is None
    assert '{"tool": "<name>", "args": {...}}' in requests[0].messages[0].content
    correction = requests[2].messages[-1]
    assert correction.role == "user" and "could not be used" in correction.content
    assert all(m.role != "tool" and not m.tool_calls for m in requests[-1].messages)


async def test_parse_errors_are_bounded(make_stack):
    stack = make_stack(['{"tool": 1}'] * 5, [add], native_tools=False, max_parse_errors=2)
    result = await Session(stack).run("x")
    assert result.outcome is Outcome.PARSE_ERRORS
    assert result.turns == 3


async def test_constrained_decoding_sends_the_tool_union_schema(make_stack):
    stack = make_stack(
        ['{"tool": "add", "args": {"a": 2, "b": 3}}', '{"answer": "5"}'],
        [add],
        native_tools=False,
        json_schema=True,
    )
    result = await Session(stack).run("2+3")
    assert result.reply == "5"
    schema = stack.adapter.requests[0].response_schema
    options = schema["oneOf"]
    assert options[0]["properties"]["tool"] == {"const": "add"}
    assert options[0]["properties"]["args"]["required"] == ["a", "b"]
    assert options[-1]["required"] == ["answer"]
    from jsonschema import Draft202012Validator

    Draft202012Validator(schema).validate(json.loads('{"tool": "add", "args": {"a": 1, "b": 2}}'))


async def test_tool_gets_run_context(make_stack):
    seen: list[str] = []

    @tool
    async def whoami(ctx: RunContext) -> str:
        """Session id."""
        seen.append(ctx.session_id)
        return ctx.session_id

    stack = make_stack([call("whoami"), "ok"], [whoami])
    session = Session(stack)
    await session.run("who")
    assert seen == [session.id]
    assert "ctx" not in json.dumps(stack.adapter.requests[0].tools[0].parameters)


async def test_retrieved_snippets_sit_beside_the_latest_user_message(make_stack):
    from agentframe_core import Snippet

    class Notes:
        def __init__(self) -> None:
            self.queries: list[tuple[str, int]] = []

        async def retrieve(self, query, *, ctx, budget_tokens):
            self.queries.append((query, budget_tokens))
            return [Snippet("the door code is 4711", "notes.md", 1.0)]

    stack = make_stack(["4711", "still 4711"], retrieval_budget_tokens=300)
    notes = Notes()
    stack.retrievers = [notes]
    session = Session(stack)
    result = await session.run("what is the door code?")
    await session.run("and again?")
    assert notes.queries == [("what is the door code?", 300), ("and again?", 300)]
    first, second = (r.messages for r in stack.adapter.requests)
    assert first[0] == second[0] and "Relevant context" not in first[0].content
    assert first[-1].role == "user" and first[-1].content.endswith("what is the door code?")
    assert "# Relevant context" in first[-1].content
    assert "[notes.md]\nthe door code is 4711" in first[-1].content
    # the earlier question is sent again as it was asked: the cached prefix stays the same
    assert second[1].content == "what is the door code?"
    assert second[-1].content.endswith("and again?") and "4711" in second[-1].content
    (report,) = result_json(result)["retrievals"]  # what `run --json` shows
    assert report["retriever"] == "Notes" and report["query"] == "what is the door code?"
    assert (report["snippets"], report["chars"], report["sources"]) == (1, 21, ["notes.md"])
    assert report["budget_tokens"] == 300 and report["seconds"] >= 0


async def test_a_retriever_that_finds_nothing_is_still_reported(make_stack, caplog):
    class Empty:
        async def retrieve(self, query, *, ctx, budget_tokens):
            return []

    stack = make_stack(["fine"])
    stack.retrievers = [Empty()]
    with caplog.at_level("INFO", logger="agentframe.retrieval"):
        result = await Session(stack).run("anything?")
    assert [(r.retriever, r.snippets) for r in result.retrievals] == [("Empty", 0)]
    assert all("# Relevant context" not in m.content for m in stack.adapter.requests[0].messages)
    assert "retriever Empty: 0 snippet(s), 0 chars" in caplog.text


@pytest.mark.parametrize(
    ("chunks", "shown"),
    [
        (['{"ans', 'wer": "It is', " 5.\\nSure", '\\u00e9."}'], "It is 5.\nSureé."),
        (['  {"tool": "add", ', '"args": {}}'], ""),
        (["```json\n", '{"tool": "add"}', "\n```"], ""),
        (["Plain ", "text"], "Plain text"),
        (['{"answer": "a \\"quoted\\" word"}'], 'a "quoted" word'),
    ],
)
def test_token_filter_in_text_tools_mode(chunks, shown):
    from agentframe_core.engine.calling import _TokenFilter

    seen: list[str] = []
    token_filter = _TokenFilter(seen.append, hide_json=True)
    for chunk in chunks:
        token_filter.feed(chunk)
    assert "".join(seen) == shown


async def test_constrained_answer_is_streamed(make_stack):
    stack = make_stack(
        ['{"tool": "add", "args": {"a": 2, "b": 3}}', '{"answer": "The sum is 5."}'],
        [add],
        native_tools=False,
        json_schema=True,
    )
    tokens: list[str] = []
    result = await Session(stack).run("2+3", on_token=tokens.append)
    assert result.reply == "The sum is 5." and "".join(tokens) == "The sum is 5."


def well_formed(messages) -> bool:
    from agentframe_core.testing.conformance.context import check_well_formed

    check_well_formed(messages, messages[0].content if messages[0].role == "system" else "")
    return True


async def test_a_message_sent_while_a_tool_runs_joins_after_its_result(make_stack):
    """Queued during a run, it is answered in the same run, after the call's result."""
    session_box: list[Session] = []

    @tool
    async def slow_lookup(key: str) -> str:
        """Looks something up."""
        await session_box[0].send("also: what about B?")
        return f"value of {key}"

    stack = make_stack([call("slow_lookup", key="A"), "A is 1, B is 2"], [slow_lookup])
    session = Session(stack)
    session_box.append(session)
    result = await session.run("what about A?")
    assert result.reply == "A is 1, B is 2" and result.claimed == 2
    last = stack.adapter.requests[-1].messages
    assert roles(last) == ["system", "user", "assistant", "tool", "user"]
    assert last[-1].content == "also: what about B?" and well_formed(last)


async def test_a_message_sent_while_the_answer_is_written_is_answered_in_the_same_run(make_stack):
    stack = make_stack([{"content": "first answer", "delay": 0.2}, "second answer"])
    session = Session(stack)
    run = asyncio.create_task(session.run("first question"))
    while not stack.adapter.requests:  # until the model is writing its first answer
        await asyncio.sleep(0.001)
    await session.send("second question")
    result = await run
    assert result.reply == "second answer" and result.turns == 2
    last = stack.adapter.requests[-1].messages
    # it joins after the answer that was in flight, not before it (issue 12, item 10)
    assert [m.content for m in last[1:]] == ["first question", "first answer", "second question"]


async def test_a_result_delivered_while_the_model_writes_joins_after_its_reply(make_stack):
    """A parked call's result arrives mid-reply: the next request ends with it, never with the
    model's own message (which some servers would continue instead of answering)."""

    @tool
    async def background(job: str) -> ToolResult:
        """Starts a job."""
        return ToolResult("", pending=True)

    replies = [call("background", job="x"), {"content": "Job started.", "delay": 0.3}, "42 it is"]
    stack = make_stack(replies, [background])
    session = Session(stack)
    run = asyncio.create_task(session.run("start it"))
    while len(stack.adapter.requests) < 2:  # until the model writes "Job started."
        await asyncio.sleep(0.001)
    entries = await stack.store.context(session.id)
    call_id = next(e.tool_call_id for e in entries if e.kind is EntryKind.TOOL_CALL)
    await stack.store.enqueue(
        session.id,
        Entry(kind=EntryKind.TOOL_RESULT, content="42", tool_call_id=call_id, tool_name="x"),
    )
    result = await run
    assert result.reply == "42 it is" and result.turns == 3
    last = stack.adapter.requests[-1].messages
    assert [m.role for m in last] == ["system", "user", "assistant", "tool", "assistant", "user"]
    assert last[-2].content == "Job started." and "42" in last[-1].content


async def test_an_on_tool_callback_that_raises_does_not_break_the_run(make_stack, caplog):
    def explode(record):
        raise RuntimeError("display broke")

    reply = {"tool_calls": [{"name": "add", "arguments": {"a": i, "b": 1}} for i in range(3)]}
    stack = make_stack([reply, "done"], [add])
    result = await Session(stack).run("go", on_tool=explode)
    assert result.reply == "done" and len(result.tool_calls) == 3
    assert "on_tool callback raised" in caplog.text


async def test_a_failing_store_during_parallel_calls_raises_the_real_error(make_stack):
    from agentframe_core.parts.memorystore import MemoryStore

    class FlakyStore(MemoryStore):
        async def append(self, session_id, entry):
            if entry.kind is EntryKind.TOOL_RESULT and entry.content == "1.0":
                raise OSError("disk full")
            await super().append(session_id, entry)

    reply = {"tool_calls": [{"name": "add", "arguments": {"a": i, "b": 1}} for i in range(3)]}
    stack = make_stack([reply, "done"], [add])
    stack.store = FlakyStore()
    session = Session(stack)
    with pytest.raises(OSError, match="disk full"):
        await session.run("go")
    entries = await stack.store.context(session.id)
    calls = {e.tool_call_id for e in entries if e.kind is EntryKind.TOOL_CALL}
    answered = {e.tool_call_id for e in entries if e.kind is EntryKind.TOOL_RESULT}
    assert len(calls) == 3 and answered == calls  # every call has a result (some interrupted)


async def test_json_answers_without_tools_are_answers(make_stack):
    reply = '{"name": "demo", "version": "1.0.0"}'
    stack = make_stack([reply], native_tools=False)
    result = await Session(stack).run("a package.json please")
    assert result.outcome is Outcome.COMPLETED and result.reply == reply


async def test_a_fence_inside_prose_is_not_a_tool_call(make_stack):
    prose = 'Run it like this:\n```json\n{"tool": "add", "args": {"a": 1, "b": 2}}\n```\nDone.'
    stack = make_stack([prose], [add], native_tools=False)
    result = await Session(stack).run("how do I call add?")
    assert result.reply == prose and result.tool_calls == []


def test_renderer_keeps_calls_and_results_together():
    from agentframe_core.engine.render import NO_RESULT, Renderer

    def entry(kind, content="", **fields):
        return Entry(kind=EntryKind(kind), content=content, **fields)

    renderer = Renderer()
    renderer.feed(
        [
            entry("user", "q1"),
            entry("assistant"),
            entry("tool_call", "{}", tool_call_id="a", tool_name="t"),
            entry("tool_call", "{}", tool_call_id="b", tool_name="t"),
            entry("tool_result", "ra", tool_call_id="a", tool_name="t"),
            entry("user", "queued while b ran"),
        ]
    )
    view = renderer.view()  # b has no result yet: a placeholder keeps the view well-formed
    assert [m.role for m in view] == ["user", "assistant", "tool", "tool", "user"]
    assert view[3].content == NO_RESULT and view[4].content == "queued while b ran"
    renderer.feed([entry("tool_result", "rb", tool_call_id="b", tool_name="t")])
    view = renderer.view()
    assert [(m.role, m.content) for m in view[2:]] == [
        ("tool", "ra"),
        ("tool", "rb"),
        ("user", "queued while b ran"),
    ]
    # a result for a call of an earlier message is shown as a user message, never as `tool`
    renderer.feed([entry("tool_result", "late", tool_call_id="a", tool_name="t")])
    assert renderer.view()[-1].role == "user" and "late" in renderer.view()[-1].content
