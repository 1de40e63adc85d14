"""Registers the compat loaders; every registered loader is used when agents are found."""

from __future__ import annotations

from agentframe_core import Register, hookimpl

from .loaders import ClaudeLoader, CompatOptions, KigiLoader, PiLoader


@hookimpl
def agentframe_agent_loaders(register: Register) -> None:
    register("claude", ClaudeLoader, options=CompatOptions)
    register("pi", PiLoader, options=CompatOptions)
    register("kigi", KigiLoader, options=CompatOptions)
