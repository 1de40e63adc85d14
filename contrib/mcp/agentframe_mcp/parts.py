"""The `use: mcp` parts of the config in force, for the commands and the doctor."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from agentframe_core import PartConfig

from .options import McpOptions
from .toolset import McpToolset

__all__ = ["configured_toolsets"]


def configured_toolsets(
    tools: Sequence[PartConfig], config_file: Path | None, cwd: Path | None = None
) -> list[McpToolset]:
    """One toolset per `use: mcp` part of the config's `tools` (`config_file` the file they
    are written in, which their inline servers' relative paths mean); with none, the
    project's .mcp.json alone."""
    parts = [part for part in tools if part.name == "mcp"]
    if not parts:
        return [McpToolset(McpOptions(), cwd, config_file=config_file, config_known=True)]
    base = config_file.resolve().parent if config_file is not None else None
    return [
        McpToolset(part.options, cwd, base, config_file=config_file, config_known=True)
        for part in parts
    ]
