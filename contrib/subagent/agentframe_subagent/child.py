"""One child run: an agent definition, made no looser than its parent, in its own session.

The child sees only its task (a new session whose first message carries the link to its
parent as `origin`: `{parent, tool_call_id, agent, via}`, what `sessions list --children`
reads), the stack's tools minus the `subagent` tool itself (no recursion) and minus what
its own definition or its parent's refuses, its own system prompt, and its own model or
else the parent's.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentframe_core import (
    AgentDefinition,
    Outcome,
    RunContext,
    Session,
    Stack,
    ToolCallRecord,
    ToolDispatcher,
    Usage,
)

__all__ = ["LINK_KEY", "ChildRun", "ChildSpec", "child_definition", "run_child"]

#: `via` in the link to the parent, the child's first message's `origin`.
LINK_KEY = "subagent"

#: Permission modes, loosest first: a child gets the stricter of its own and its parent's.
_STRICTNESS = ("dontAsk", "acceptEdits", "default", "plan")

_SUCCESS = {Outcome.COMPLETED, Outcome.TERMINAL_TOOL}


@dataclass(frozen=True, slots=True)
class ChildSpec:
    """What one child is asked: which agent, which task, for which parent call."""

    agent: AgentDefinition
    task: str
    call_id: str
    #: The child's position in its call (0 for `single`).
    index: int = 0


@dataclass(slots=True)
class ChildRun:
    """How one child ended: `done`, `failed` or `cancelled`, its answer or why not."""

    agent: str
    session_id: str
    status: str = "cancelled"
    outcome: str | None = None
    text: str = "cancelled before it finished"
    usage: Usage = field(default_factory=Usage)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.status == "done"

    def to_json(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "session_id": self.session_id,
            "status": self.status,
            "outcome": self.outcome,
            "usage": self.usage.to_dict(),
            "seconds": round(self.seconds, 3),
        }


def child_definition(agent: AgentDefinition, parent: AgentDefinition | None) -> AgentDefinition:
    """`agent` with the parent's model when it names none, and never looser than the parent:
    its tools within the parent's (the allowlists intersected, the denylists joined) and its
    permission mode at least as strict. Delegating must not be a way round a denied tool."""
    update: dict[str, Any] = {}
    if agent.adapter_model is None and parent is not None and parent.adapter_model:
        update["model"] = parent.adapter_model
    mode = parent.permission_mode if parent is not None else "default"
    if _STRICTNESS.index(mode) > _STRICTNESS.index(agent.permission_mode):
        update["permission_mode"] = mode
    if parent is not None and parent.tools is not None:
        own = parent.tools if agent.tools is None else agent.tools
        update["tools"] = [name for name in own if name in parent.tools]
    if parent is not None and set(parent.disallowed_tools) - set(agent.disallowed_tools):
        joined = [*agent.disallowed_tools, *parent.disallowed_tools]
        update["disallowed_tools"] = list(dict.fromkeys(joined))
    return agent.model_copy(update=update) if update else agent


async def run_child(
    spec: ChildSpec,
    ctx: RunContext,
    base: Stack,
    itself: ToolDispatcher,
    cwd: Path,
    board: list[ChildRun | None],
) -> ChildRun:
    """Run one child to its end in a new session of the parent's store, its `ChildRun` on
    `board[spec.index]` from the start (so a cancelled call still reports it). Cancellation
    propagates (the child's turn lease is released on the way out)."""
    definition = child_definition(spec.agent, ctx.agent)
    stack = dataclasses.replace(base, tools=[d for d in base.tools if d is not itself])
    session = Session(stack, uuid.uuid4().hex, agent=definition, cwd=cwd, parent=ctx.session_id)
    run = board[spec.index] = ChildRun(definition.name, session.id)
    event: dict[str, Any] = {
        "agent": definition.name,
        "session_id": session.id,
        "tool_call_id": spec.call_id,
        "index": spec.index,
    }
    link = {
        "parent": ctx.session_id,
        "tool_call_id": spec.call_id,
        "agent": definition.name,
        "via": LINK_KEY,
    }
    started = time.perf_counter()
    ctx.emit("subagent.started", {**event, "task": spec.task[:200]})

    def on_tool(record: ToolCallRecord) -> None:
        ctx.emit("subagent.tool", {**event, "tool": record.call.name})

    try:
        await session.send(spec.task, origin=link)
        result = await session.run(on_tool=on_tool, on_question=ctx.ask)
    except asyncio.CancelledError:
        run.seconds = time.perf_counter() - started
        ctx.emit("subagent.finished", {**event, **run.to_json()})
        raise
    except Exception as err:  # a broken child is a failed task, not a failed parent
        run.status, run.text = "failed", f"{type(err).__name__}: {err}"
    else:
        run.outcome, run.usage = result.outcome.value, result.usage
        run.status = "done" if result.outcome in _SUCCESS else "failed"
        run.text = result.reply if run.ok else f"ended with {run.outcome}: {result.reply}"
    run.seconds = time.perf_counter() - started
    ctx.emit("subagent.finished", {**event, **run.to_json()})
    return run
