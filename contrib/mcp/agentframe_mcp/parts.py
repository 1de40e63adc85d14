"""The `use: mcp` parts of the config in force, for the commands and the doctor."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from agentframe_core import PartConfig

from .options import McpOptions
from .toolset import McpToolset

__all__ = ["configured_toolsets"]


def configured_toolsets(tools: Sequence[PartConfig], cwd: Path | None = None) -> list[McpToolset]:
    """One toolset per `use: mcp` part of the config's `tools`; with none, the project's
    .mcp.json alone."""
    parts = [part for part in tools if part.name == "mcp"]
    if not parts:
        return [McpToolset(McpOptions(), cwd)]
    return [McpToolset(part.options, cwd) for part in parts]
