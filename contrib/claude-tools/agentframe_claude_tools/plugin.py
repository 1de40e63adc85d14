"""Registers `use: claude-tools` (a tool dispatcher)."""

from __future__ import annotations

from agentframe_core import Register, hookimpl

from .options import ClaudeToolsOptions


def _build(options: ClaudeToolsOptions) -> object:
    from .dispatcher import ClaudeTools

    return ClaudeTools(options)


@hookimpl
def agentframe_tool_dispatchers(register: Register) -> None:
    register("claude-tools", _build, options=ClaudeToolsOptions)
