"""Loop behaviour that agent definitions control, enforced where calls are dispatched."""

from __future__ import annotations

import logging
import time

import pytest
from stacks import call

from agentframe_core import AgentDefinition, EntryKind, tool
from agentframe_core.engine.session import Outcome, Session

runs: list[str] = []


@tool(writes=False)
async def read(path: str) -> str:
    """Read a file."""
    runs.append(f"read {path}")
    return f"contents of {path}"


@tool(writes=True)
async def write(path: str, text: str) -> str:
    """Write a file."""
    runs.append(f"write {path}")
    return "written"


@tool
async def submit(report: str) -> str:
    """Submit the report."""
    runs.append("submit")
    return "submitted"


def agent(**fields) -> AgentDefinition:
    return AgentDefinition.model_validate({"name": "tester", "description": "test", **fields})


async def test_denied_tool_is_refused_at_dispatch_and_never_runs(make_stack):
    runs.clear()
    stack = make_stack([call("write", path="x", text="y"), "ok"], [read, write])
    session = Session(stack, agent=agent(disallowedTools="write"))
    result = await session.run("write it")
    assert runs == []
    assert "not allowed for agent 'tester'" in result.tool_calls[0].result.content
    advertised = [t.name for t in stack.adapter.requests[0].tools]
    assert advertised == ["read"]


async def test_allowlist_empty_means_no_tools(make_stack):
    runs.clear()
    stack = make_stack([call("read", path="a"), "ok"], [read])
    result = await Session(stack, agent=agent(tools=[])).run("read")
    assert runs == [] and result.tool_calls[0].result.is_error
    assert stack.adapter.requests[0].tools == []


async def test_plan_mode_refuses_writing_tools(make_stack):
    runs.clear()
    replies = [call("read", path="a"), call("write", path="a", text="b"), "planned"]
    stack = make_stack(replies, [read, write])
    result = await Session(stack, agent=agent(permissionMode="plan")).run("change a")
    assert runs == ["read a"]
    assert "plan mode does not allow" in result.tool_calls[1].result.content


async def test_completion_requirement_reminds_with_backoff(make_stack):
    runs.clear()
    requirement = {
        "tool": "submit",
        "reminder": "You must call submit.",
        "recovery": {"maxRetries": 2, "baseDelayMs": 20, "maxDelayMs": 30},
    }
    stack = make_stack(["no", "still no", call("submit", report="r"), "done"], [submit])
    started = time.monotonic()
    result = await Session(stack, agent=agent(completionRequirement=requirement)).run("go")
    elapsed = time.monotonic() - started
    assert result.outcome is Outcome.COMPLETED and runs == ["submit"]
    assert elapsed >= 0.02 + 0.03  # min(20*2^0, 30) + min(20*2^1, 30) ms
    reminders = [
        m for m in stack.adapter.requests[2].messages if m.content == "You must call submit."
    ]
    assert len(reminders) == 2


async def test_completion_requirement_exhausted_is_an_outcome(make_stack):
    requirement = {
        "tool": "submit",
        "reminder": "Submit!",
        "recovery": {"maxRetries": 1, "baseDelayMs": 0},
    }
    stack = make_stack(["no", "no"], [submit])
    result = await Session(stack, agent=agent(completionRequirement=requirement)).run("go")
    assert result.outcome is Outcome.REQUIREMENT_UNMET
    assert result.turns == 2


async def test_failed_attempts_of_a_retried_tool_log_one_line_each_not_a_traceback(
    make_stack, caplog
):
    attempts: list[int] = []

    @tool
    async def flaky() -> str:
        """Fails twice."""
        attempts.append(1)
        if len(attempts) < 3:
            raise ConnectionError("try again")
        return "finally"

    caplog.set_level(logging.WARNING)
    config = {"flaky": {"retry": {"maxRetries": 3, "baseDelayMs": 1, "maxDelayMs": 1}}}
    stack = make_stack([call("flaky"), "ok"], [flaky])
    result = await Session(stack, agent=agent(toolConfig=config)).run("go")
    assert result.tool_calls[0].result.content == "finally"
    shown = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(shown) == 2 and all("ConnectionError: try again" in r.getMessage() for r in shown)
    assert not any(r.exc_info for r in shown) and "Traceback" not in caplog.text


async def test_tool_retry_with_backoff(make_stack):
    attempts: list[float] = []

    @tool
    async def flaky() -> str:
        """Fails twice."""
        attempts.append(time.monotonic())
        if len(attempts) < 3:
            raise ConnectionError("try again")
        return "finally"

    config = {"flaky": {"retry": {"maxRetries": 3, "baseDelayMs": 10, "maxDelayMs": 15}}}
    stack = make_stack([call("flaky"), "ok"], [flaky])
    result = await Session(stack, agent=agent(toolConfig=config)).run("go")
    assert result.tool_calls[0].result.content == "finally"
    assert len(attempts) == 3
    assert attempts[1] - attempts[0] >= 0.01 and attempts[2] - attempts[1] >= 0.015


async def test_tool_timeout_from_tool_config(make_stack):
    import asyncio

    @tool
    async def slow() -> str:
        """Slow."""
        await asyncio.sleep(10)
        return "late"

    stack = make_stack([call("slow"), "ok"], [slow])
    config = {"slow": {"timeoutSecs": 0.05}}
    result = await Session(stack, agent=agent(toolConfig=config)).run("go")
    assert "timed out after 0.05 s" in result.tool_calls[0].result.content


async def test_name_overrides_on_the_wire_only(make_stack):
    runs.clear()
    overrides = {
        "toolNameOverrides": {"read": "open_file"},
        "paramNameOverrides": {"read": {"path": "file_path"}},
    }
    stack = make_stack([call("open_file", file_path="notes.txt"), "read it"], [read])
    session = Session(stack, agent=agent(**overrides))
    result = await session.run("read notes")
    assert runs == ["read notes.txt"]
    spec = stack.adapter.requests[0].tools[0]
    assert spec.name == "open_file" and list(spec.parameters["properties"]) == ["file_path"]
    history = stack.adapter.requests[1].messages
    sent_call = next(m for m in history if m.tool_calls).tool_calls[0]
    assert sent_call.name == "open_file" and sent_call.arguments == {"file_path": "notes.txt"}
    stored = [e for e in await stack.store.context(session.id) if e.kind is EntryKind.TOOL_CALL]
    assert stored[0].tool_name == "read" and stored[0].content == '{"path": "notes.txt"}'
    assert result.tool_calls[0].call.name == "read"


async def test_max_turns_from_the_agent(make_stack):
    stack = make_stack([call("read", path="1"), call("read", path="2")], [read], max_turns=10)
    stack.adapter.cycle = True
    result = await Session(stack, agent=agent(maxTurns=2)).run("go")
    assert result.outcome is Outcome.MAX_TURNS and result.turns == 2


async def test_agent_model_is_requested(make_stack):
    stack = make_stack(["hi", "hi"])
    await Session(stack, agent=agent(model="small")).run("x")
    await Session(stack, agent=agent(model="inherit")).run("x")
    assert [r.model for r in stack.adapter.requests] == ["small", None]


async def test_an_override_naming_a_tool_the_stack_lacks_is_an_error(make_stack):
    from agentframe_core.contract.errors import UnknownToolOverrideError

    stack = make_stack(["never"], [read])
    bad = agent(toolNameOverrides={"grep": "search"})
    with pytest.raises(UnknownToolOverrideError, match="grep"):
        await Session(stack, agent=bad).run("x")
    assert stack.adapter.requests == []
