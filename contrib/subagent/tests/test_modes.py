"""The three modes through a real Session: timing, order, chains, errors."""

from __future__ import annotations

import time
from typing import Any

from agentframe_core import EntryKind, Outcome, Session, ToolCall

TASK = 0.4  # seconds one child's model takes


async def test_single_returns_the_childs_answer(kit: Any) -> None:
    stack, _ = kit.make_stack([kit.call({"agent": "worker", "task": "say=forty-two"}), "done"])
    result = await Session(stack).run("go")
    assert result.outcome is Outcome.COMPLETED
    record = result.tool_calls[0]
    assert record.result.content == "forty-two" and not record.result.is_error
    child = record.result.meta["children"][0]
    assert child["agent"] == "worker" and child["status"] == "done"


async def test_eight_parallel_tasks_on_four_slots_take_two_task_times(kit: Any) -> None:
    tasks = [{"agent": "worker", "task": f"sleep={TASK};say=answer {i}"} for i in range(8)]
    stack, _ = kit.make_stack([kit.call({"tasks": tasks}), "done"])
    started = time.perf_counter()
    result = await Session(stack).run("go")
    wall = time.perf_counter() - started
    assert wall <= 2.3 * TASK, f"8 tasks on 4 slots took {wall:.2f} s (one task: {TASK} s)"
    assert wall >= 2 * TASK, "more than 4 children ran at once"
    children = result.tool_calls[0].result.meta["children"]
    assert [c["status"] for c in children] == ["done"] * 8


async def test_parallel_results_come_back_in_task_order(kit: Any) -> None:
    delays = [0.3, 0.0, 0.2, 0.1]
    tasks = [{"agent": "worker", "task": f"sleep={d};say=answer {i}"} for i, d in enumerate(delays)]
    tasks[1]["agent"] = "reviewer"
    stack, _ = kit.make_stack([kit.call({"tasks": tasks}), "done"])
    result = await Session(stack).run("go")
    content = result.tool_calls[0].result.content
    blocks = content.split("\n\n")
    assert blocks == [
        "[1] worker (done):\nanswer 0",
        "[2] reviewer (done):\nanswer 1",
        "[3] worker (done):\nanswer 2",
        "[4] worker (done):\nanswer 3",
    ]
    children = result.tool_calls[0].result.meta["children"]
    assert [c["agent"] for c in children] == ["worker", "reviewer", "worker", "worker"]


async def test_a_chain_passes_previous_along(kit: Any) -> None:
    chain = [
        {"agent": "worker", "task": "say=alpha"},
        {"agent": "worker", "task": "say={previous} beta"},
        {"agent": "reviewer", "task": "say={previous} gamma"},
    ]
    stack, adapter = kit.make_stack([kit.call({"chain": chain}), "done"])
    result = await Session(stack).run("go")
    record = result.tool_calls[0].result
    assert not record.is_error
    assert record.content.endswith("[3] reviewer (done):\nalpha beta gamma")
    asked = [r.messages[-1].content for r in adapter.child_requests["worker"]]
    assert asked == ["say=alpha", "say=alpha beta"]


async def test_a_chain_stops_at_the_failed_step_and_names_it(kit: Any) -> None:
    chain = [
        {"agent": "worker", "task": "say=alpha"},
        {"agent": "reviewer", "task": "fail"},
        {"agent": "worker", "task": "say=never"},
    ]
    stack, adapter = kit.make_stack([kit.call({"chain": chain}), "done"])
    result = await Session(stack).run("go")
    record = result.tool_calls[0].result
    assert record.is_error
    assert "chain stopped at step 2 of 3 (reviewer)" in record.content
    assert "the child's model failed" in record.content
    assert len(adapter.child_requests["worker"]) == 1  # step 3 never ran
    assert len(record.meta["children"]) == 2


async def test_an_unknown_agent_is_an_error_listing_the_known_ones(kit: Any) -> None:
    tasks = [{"agent": "worker", "task": "say=a"}, {"agent": "nobody", "task": "say=b"}]
    stack, adapter = kit.make_stack([kit.call({"tasks": tasks}), "done"])
    result = await Session(stack).run("go")
    record = result.tool_calls[0].result
    assert record.is_error
    # the schema's enum refuses it before the tool runs, naming the agents there are
    assert "tasks/1/agent: 'nobody' is not one of ['reviewer', 'worker', 'writer']" in (
        record.content
    )
    assert adapter.child_requests == {}  # nothing ran
    direct = await stack.tools[0].dispatch(ToolCall("c", "subagent", {"tasks": tasks}), _ctx(stack))
    assert "task 2: unknown agent 'nobody'; known agents: reviewer, worker, writer" in (
        direct.content
    )


async def test_too_many_tasks_and_mixed_modes_are_refused(kit: Any) -> None:
    from agentframe_subagent import SubagentOptions

    tasks = [{"agent": "worker", "task": "say=a"}] * 3
    options = SubagentOptions(max_tasks=2)
    both = {"agent": "worker", "task": "x", "chain": tasks}
    stack, _ = kit.make_stack(
        [kit.call({"tasks": tasks}), kit.call(both, "c2"), "done"], options=options
    )
    result = await Session(stack).run("go")
    first, second = (r.result for r in result.tool_calls)
    assert first.is_error and "maxItems" not in first.content  # refused before any child
    assert second.is_error


async def test_the_allowlist_limits_the_agents(kit: Any) -> None:
    from agentframe_subagent import SubagentOptions

    stack, _ = kit.make_stack(
        [kit.call({"agent": "writer", "task": "say=a"}), "done"],
        options=SubagentOptions(agents=["worker", "reviewer"]),
    )
    session = Session(stack)
    result = await session.run("go")
    record = result.tool_calls[0].result
    assert record.is_error and "'writer' is not one of ['reviewer', 'worker']" in record.content
    tools = await stack.tools[0].tools(_ctx(stack))
    assert "- writer" not in tools[0].description
    assert tools[0].description.index("- reviewer") < tools[0].description.index("- worker")


async def test_each_child_is_a_session_linked_to_its_parent(kit: Any) -> None:
    tasks = [{"agent": "worker", "task": "say=a"}, {"agent": "reviewer", "task": "say=b"}]
    stack, _ = kit.make_stack([kit.call({"tasks": tasks}, "call-7"), "done"])
    parent = Session(stack)
    result = await parent.run("go")
    children = result.tool_calls[0].result.meta["children"]
    for child in children:
        entries = await stack.store.context(child["session_id"])
        first = entries[0]
        assert first.kind is EntryKind.USER
        assert first.origin == {
            "parent": parent.id,
            "tool_call_id": "call-7",
            "agent": child["agent"],
            "via": "subagent",
        }
        assert entries[-1].kind is EntryKind.ASSISTANT
    parent_entries = await stack.store.context(parent.id)
    stored = next(e for e in parent_entries if e.kind is EntryKind.TOOL_RESULT)
    assert [c["session_id"] for c in stored.meta["children"]] == [c["session_id"] for c in children]


def _ctx(stack: Any) -> Any:
    from agentframe_core import RunContext

    return RunContext("s", stack)


async def test_child_progress_reaches_the_parents_on_event(kit: Any) -> None:
    tasks = [{"agent": "worker", "task": "call=echo"}, {"agent": "reviewer", "task": "say=b"}]
    stack, _ = kit.make_stack([kit.call({"tasks": tasks}), "done"])
    events: list[tuple[str, dict[str, Any]]] = []
    await Session(stack).run("go", on_event=lambda kind, data: events.append((kind, data)))
    seen = [(kind, data["agent"], data.get("tool")) for kind, data in events]
    for agent in ("worker", "reviewer"):
        mine = [kind for kind, name, _ in seen if name == agent]
        assert mine[0] == "subagent.started" and mine[-1] == "subagent.finished"
    assert ("subagent.tool", "worker", "echo") in seen
    finished = [data for kind, data in events if kind == "subagent.finished"]
    assert {d["status"] for d in finished} == {"done"} and all(d["session_id"] for d in finished)


async def test_modes_can_be_restricted(kit: Any) -> None:
    from agentframe_subagent import SubagentOptions

    tasks = [{"agent": "worker", "task": "say=a"}]
    options = SubagentOptions(modes=["single"])
    stack, _ = kit.make_stack([kit.call({"tasks": tasks}), "done"], options=options)
    (tool,) = await stack.tools[0].tools(_ctx(stack))
    assert set(tool.parameters["properties"]) == {"agent", "task"}
    assert tool.parameters["required"] == ["agent", "task"]
    assert "parallel" not in tool.description
    record = await stack.tools[0].dispatch(ToolCall("c", "subagent", {"tasks": tasks}), _ctx(stack))
    assert record.is_error and "mode 'parallel' is not offered; offered: single" in record.content


async def test_the_agent_argument_is_an_enum_of_the_agents_offered(kit: Any) -> None:
    """issue 28: with a free string a small model invented `"agent": "subagent"`."""
    from agentframe_subagent import SubagentOptions

    stack, _ = kit.make_stack(["done"], options=SubagentOptions(agents=["worker", "reviewer"]))
    (tool,) = await stack.tools[0].tools(_ctx(stack))
    properties = tool.parameters["properties"]
    assert properties["agent"]["enum"] == ["reviewer", "worker"]
    for key in ("tasks", "chain"):
        assert properties[key]["items"]["properties"]["agent"]["enum"] == ["reviewer", "worker"]


async def test_no_agent_to_delegate_to_means_no_tool(kit: Any) -> None:
    stack, _ = kit.make_stack(["done"], agents=[])
    assert await stack.tools[0].tools(_ctx(stack)) == []
