"""Registers `use: claude-tools` (a tool dispatcher)."""

from __future__ import annotations

from agentframe_core import Config, Diagnosis, Register, hookimpl

from .options import ClaudeToolsOptions


def _build(options: ClaudeToolsOptions) -> object:
    from .dispatcher import ClaudeTools

    return ClaudeTools(options)


@hookimpl
def agentframe_tool_dispatchers(register: Register) -> None:
    register("claude-tools", _build, options=ClaudeToolsOptions)


@hookimpl
def agentframe_doctor(config: Config) -> list[Diagnosis] | None:
    """Whether each `use: claude-tools` offering Bash runs it in a sandbox, and whether the
    sandbox can be made here."""
    from .sandbox import diagnose

    parts = [p for p in config.tools if p.name == "claude-tools" and "Bash" in p.options.offered()]
    return [diagnose(p.options.sandbox, p.path) for p in parts] or None
