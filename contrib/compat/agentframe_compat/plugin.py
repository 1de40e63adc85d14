"""Registers the compat loaders (every registered loader is used when agents are found) and
the runtime hooks that run Claude Code's hooks and permission rules (`runtime.py`)."""

from __future__ import annotations

from agentframe_core import Register, hookimpl

from .loaders import ClaudeLoader, CompatOptions, KigiLoader, PiLoader
from .runtime import (  # noqa: F401 - pluggy finds the hook implementations here
    agentframe_compacting,
    agentframe_gate_tool_call,
    agentframe_notification,
    agentframe_prompt_submitted,
    agentframe_run_stopping,
    agentframe_session_ended,
    agentframe_session_started,
    agentframe_tool_result,
)


@hookimpl
def agentframe_agent_loaders(register: Register) -> None:
    register("claude", ClaudeLoader, options=CompatOptions)
    register("pi", PiLoader, options=CompatOptions)
    register("kigi", KigiLoader, options=CompatOptions)
