"""System prompt assembly (a minimal base; the agent-definition work extends it)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from .agent import AgentDefinition

__all__ = ["assemble_system_prompt"]

BASE = "You are a helpful assistant. Use the tools you are given when they help; be concise."


def assemble_system_prompt(
    agent: AgentDefinition | None, tool_names: Mapping[str, str], *, cwd: Path
) -> str:
    if agent is None:
        return BASE
    if agent.prompt_mode == "full":
        return agent.prompt
    return f"{BASE}\n\n{agent.prompt}".strip()
