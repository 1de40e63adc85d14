"""Tools for the serve tests' stacks (`import: [servetools:nap]`)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agentframe_core import Question, RunContext, tool


@tool(writes=False)
async def nap(seconds: float, started: str = "") -> str:
    """Waits, then says so; first creates the file `started` names, so that a test can see
    the nap under way."""
    if started:
        Path(started).touch()
    await asyncio.sleep(seconds)
    return f"slept {seconds} s"


@tool(writes=False)
async def delegate(task: str, ctx: RunContext) -> str:
    """Hands a task to a helper, reporting its progress as a sub-agent would."""
    ctx.emit("child_started", {"session_id": "child-1", "agent": "helper", "task": task})
    ctx.emit("child_finished", {"session_id": "child-1", "outcome": "completed"})
    return "the helper says: done"


@tool(writes=False)
async def remove(path: str, ctx: RunContext) -> str:
    """Removes a file once the person says so."""
    answer = await ctx.ask(Question(f"Remove {path}?", source="servetools"))
    return f"{answer.action} {answer.reason}".strip()


@tool(writes=False)
async def label(ctx: RunContext) -> str:
    """Asks the person for a label and how many."""
    fields = {"name": {"type": "string"}, "count": {"type": "integer"}}
    form = {"type": "object", "properties": fields, "required": ["name"]}
    answer = await ctx.ask(Question("Label it", schema=form))
    return f"{answer.action} {answer.content}"
