"""The `use: mcp` parts of the config in force, for the commands and the doctor."""

from __future__ import annotations

from pathlib import Path

from agentframe_core import Config

from .options import McpOptions
from .toolset import McpToolset

__all__ = ["configured_toolsets"]


def configured_toolsets(config: Config, cwd: Path | None = None) -> list[McpToolset]:
    """One toolset per `use: mcp` part; with none, the project's .mcp.json alone."""
    parts = [part for part in config.tools if part.name == "mcp"]
    if not parts:
        return [McpToolset(McpOptions(), cwd)]
    return [McpToolset(part.options, cwd) for part in parts]
