"""A tool for the UI tests' stack (`import: [uitools:remove]`): it asks the person first."""

from __future__ import annotations

from agentframe_core import Question, RunContext, tool

SCHEMA = {
    "type": "object",
    "properties": {
        "reason": {"type": "string", "title": "Why"},
        "copies": {"type": "integer", "title": "Copies to keep", "default": 1},
    },
    "required": ["reason"],
}


@tool(writes=False)
async def remove(path: str, ctx: RunContext) -> str:
    """Removes a file once the person says why."""
    answer = await ctx.ask(Question(f"Remove {path}?", schema=SCHEMA, source="uitools"))
    return f"{answer.action} {answer.content}"
