"""A stack whose parent follows a script and whose children answer by their task.

Child requests (their `context_label` names their agent) are answered by `child_reply`:
a task `sleep=0.3;say=hello` waits 0.3 s and answers `hello`; `fail` makes the model raise;
`call=NAME` calls tool NAME once, then answers. Every child request is kept, by agent.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from types import SimpleNamespace
from typing import Any

import pytest
from agentframe_subagent import SubagentOptions, SubagentTool

from agentframe_core import (
    AgentDefinition,
    Capabilities,
    Completion,
    CompletionRequest,
    FunctionToolset,
    MemoryStore,
    Stack,
    VerbatimBuilder,
    tool,
)
from agentframe_core.testing import ScriptedAdapter, ScriptedReply

with contextlib.suppress(ImportError):  # the real-model tests need agentframe-llamacpp
    from agentframe_llamacpp.testing import llama_runtime  # noqa: F401 (a fixture)


def child_reply(task: str, answered_tool: bool) -> ScriptedReply:
    fields = dict(part.split("=", 1) for part in task.split(";") if "=" in part)
    if task.strip() == "fail":
        raise RuntimeError("the child's model failed")
    usage = {"prompt_tokens": 10, "completion_tokens": 5}
    if "call" in fields and not answered_tool:
        calls = [{"name": fields["call"]}]
        return ScriptedReply.model_validate({"tool_calls": calls, "usage": usage})
    return ScriptedReply(
        content=fields.get("say", "ok"), delay=float(fields.get("sleep", 0)), usage=usage
    )


class RoutingAdapter:
    """The parent's requests go to `parent` (a ScriptedAdapter); a child's to `child_reply`."""

    def __init__(self, parent: ScriptedAdapter) -> None:
        self.parent = parent
        #: How the parent's requests are recognised (`context_label` is `agent:...` when the
        #: parent runs without a definition).
        self.parent_label = "agent:"
        self.child_requests: dict[str, list[CompletionRequest]] = {}
        #: When (perf_counter) each cancelled child model call was cancelled.
        self.cancelled_at: list[float] = []

    @property
    def capabilities(self) -> Capabilities:
        return self.parent.capabilities

    async def complete(self, request: CompletionRequest) -> Completion:
        label = str(request.metadata.get("context_label", ""))
        if label.startswith(self.parent_label):
            return await self.parent.complete(request)
        agent = label.split(":", 1)[0]
        self.child_requests.setdefault(agent, []).append(request)
        task = next(m.content for m in request.messages if m.role == "user")
        answered = any(m.role == "tool" for m in request.messages)
        try:
            return await ScriptedAdapter([child_reply(task, answered)]).complete(request)
        except asyncio.CancelledError:
            self.cancelled_at.append(time.perf_counter())
            raise

    async def stream(self, request: CompletionRequest) -> AsyncIterator[str | Completion]:
        yield await self.complete(request)


def agent(name: str, **fields: Any) -> AgentDefinition:
    return AgentDefinition(
        name=name, description=f"the {name} agent", prompt=f"You are {name}.", **fields
    )


@tool
def echo() -> str:
    """Say echo."""
    return "echo"


@tool
def shout() -> str:
    """Say ECHO."""
    return "ECHO"


AGENTS = [agent("worker"), agent("reviewer", tools=["echo"]), agent("writer", model="big")]


def make_stack(
    replies: list[Any],
    *,
    options: SubagentOptions | None = None,
    agents: list[AgentDefinition] | None = None,
) -> tuple[Stack, RoutingAdapter]:
    adapter = RoutingAdapter(ScriptedAdapter(replies))
    subagents = SubagentTool(options, agents=AGENTS if agents is None else agents)
    stack = Stack(
        adapter, MemoryStore(), VerbatimBuilder(), tools=[subagents, FunctionToolset([echo, shout])]
    )
    return stack, adapter


def call(arguments: dict[str, Any], call_id: str = "c1") -> dict[str, Any]:
    return {"tool_calls": [{"name": "subagent", "arguments": arguments, "id": call_id}]}


@pytest.fixture
def kit() -> SimpleNamespace:
    """The helpers above, for the test modules (conftest is not importable by name)."""
    return SimpleNamespace(make_stack=make_stack, call=call, agent=agent, agents=AGENTS)
