"""`tools: [{use: skills}]`: one tool, `load_skill(name)`. Its description carries the skill
index (names and descriptions, sorted), so the index sits in the tool list, which stays the
same from turn to turn: the prompt's cached prefix is not disturbed."""

from __future__ import annotations

import asyncio

from agentframe_core import RunContext, Tool, ToolCall, ToolResult

from .catalog import index_text, loaded_text, scan
from .options import SkillsOptions

__all__ = ["SkillTools"]

INTRO = (
    "Load a skill: instructions for a kind of task, with the files that come with it. "
    "Call it with the skill's name when the task matches a description below.\n\nSkills:\n"
)


class SkillTools:
    def __init__(self, options: SkillsOptions) -> None:
        self.options = options

    async def tools(self, ctx: RunContext) -> list[Tool]:
        skills = (await asyncio.to_thread(scan, self.options.folders)).skills
        if not skills:
            return []
        return [
            Tool(
                name="load_skill",
                description=INTRO + index_text(skills),
                parameters={
                    "type": "object",
                    "properties": {
                        "name": {"type": "string", "enum": [s.name for s in skills]},
                    },
                    "required": ["name"],
                    "additionalProperties": False,
                },
                pinned=True,  # the skill index: shown whatever tool selection picks
            )
        ]

    async def dispatch(self, call: ToolCall, ctx: RunContext) -> ToolResult:
        skills = (await asyncio.to_thread(scan, self.options.folders)).skills
        name = call.arguments.get("name")
        skill = next((s for s in skills if s.name == name), None)
        if skill is None:
            known = ", ".join(s.name for s in skills) or "none"
            return ToolResult(f"no skill named {name!r}; available: {known}", is_error=True)
        return ToolResult(await asyncio.to_thread(loaded_text, skill), meta={"skill": skill.name})
