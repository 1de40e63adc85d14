"""Registers `use: subagents` (a tool dispatcher)."""

from __future__ import annotations

from agentframe_core import Register, hookimpl

from .options import SubagentOptions


def _build(options: SubagentOptions) -> object:
    from .dispatcher import SubagentTool

    return SubagentTool(options)


@hookimpl
def agentframe_tool_dispatchers(register: Register) -> None:
    register("subagents", _build, options=SubagentOptions)
