"""What a child sees and may do: its task only, its tools, its model, no `subagent`."""

from __future__ import annotations

from typing import Any

from agentframe_subagent.child import child_definition

from agentframe_core import Session


async def test_a_child_sees_only_its_task_and_its_own_prompt(kit: Any) -> None:
    stack, adapter = kit.make_stack(
        ["first answer", kit.call({"agent": "reviewer", "task": "say=ok"}), "done"]
    )
    session = Session(stack)
    await session.run("a secret the child must not see")
    await session.run("now delegate")
    (request,) = adapter.child_requests["reviewer"]
    roles = [m.role for m in request.messages]
    assert roles == ["system", "user"]
    assert request.messages[1].content == "say=ok"
    assert "You are reviewer." in request.messages[0].content
    assert all("secret" not in m.content for m in request.messages)


async def test_no_recursion_and_the_definition_filters_the_tools(kit: Any) -> None:
    tasks = [{"agent": "worker", "task": "say=a"}, {"agent": "reviewer", "task": "call=shout"}]
    stack, adapter = kit.make_stack([kit.call({"tasks": tasks}), "done"])
    result = await Session(stack).run("go")
    worker = {t.name for t in adapter.child_requests["worker"][0].tools}
    reviewer = {t.name for t in adapter.child_requests["reviewer"][0].tools}
    assert "subagent" in {t.name for t in adapter.parent.requests[0].tools}
    assert worker == {"echo", "shout"}  # everything but the subagent tool
    assert reviewer == {"echo"}  # its definition allows only echo
    # the reviewer's call to a tool it may not use was refused, and it went on
    second = adapter.child_requests["reviewer"][1].messages[-1]
    assert second.role == "tool" and "not allowed for agent 'reviewer'" in second.content
    assert result.tool_calls[0].result.meta["children"][1]["status"] == "done"


async def test_a_child_uses_its_model_else_the_parents(kit: Any) -> None:
    parent = kit.agent("boss", model="parent-model")
    stack, adapter = kit.make_stack(
        [
            kit.call(
                {
                    "tasks": [
                        {"agent": "worker", "task": "say=a"},
                        {"agent": "writer", "task": "say=b"},
                    ]
                }
            ),
            "done",
        ]
    )
    adapter.parent_label = "boss:"
    await Session(stack, agent=parent).run("go")
    assert adapter.child_requests["writer"][0].model == "big"
    assert adapter.child_requests["worker"][0].model == "parent-model"


def test_a_childs_permission_mode_is_never_looser_than_its_parents(kit: Any) -> None:
    loose, strict = (
        kit.agent("a", permission_mode="dontAsk"),
        kit.agent("b", permission_mode="plan"),
    )
    assert child_definition(loose, strict).permission_mode == "plan"
    assert child_definition(strict, loose).permission_mode == "plan"
    assert child_definition(loose, kit.agent("c")).permission_mode == "default"
    edits = kit.agent("d", permission_mode="acceptEdits")
    assert child_definition(edits, None).permission_mode == "default"
    assert child_definition(edits, loose).permission_mode == "acceptEdits"


async def test_a_child_gets_no_tool_its_parent_is_refused(kit: Any) -> None:
    """The parent may not use `shout`; delegating to an agent that names no tools (so: all of
    them) must not hand `shout` back: it is neither offered to the child nor run for it."""
    parent = kit.agent("boss", tools=["echo", "subagent"], disallowed_tools=["shout"])
    stack, adapter = kit.make_stack([kit.call({"agent": "worker", "task": "call=shout"}), "done"])
    adapter.parent_label = "boss:"
    result = await Session(stack, agent=parent).run("go")
    first, second = adapter.child_requests["worker"]
    assert {t.name for t in first.tools} == {"echo"}
    refused = second.messages[-1]
    assert refused.role == "tool" and "not allowed for agent 'worker'" in refused.content
    assert "ECHO" not in refused.content
    assert result.tool_calls[0].result.meta["children"][0]["status"] == "done"


def test_a_childs_tools_are_within_its_parents_allow_and_deny_lists(kit: Any) -> None:
    parent = kit.agent("boss", tools=["echo", "subagent", "read"], disallowed_tools=["rm"])
    wide = child_definition(kit.agent("a"), parent)
    assert wide.tools == ["echo", "subagent", "read"] and wide.disallowed_tools == ["rm"]
    own = child_definition(kit.agent("b", tools=["shout", "read"], disallowed_tools=["x"]), parent)
    assert own.tools == ["read"] and own.disallowed_tools == ["x", "rm"]
    assert not own.allows("shout") and not own.allows("rm") and own.allows("read")
    free = kit.agent("c", tools=["shout"])
    assert child_definition(free, None) is free
    assert child_definition(free, kit.agent("d")).tools == ["shout"]  # a parent with no lists
