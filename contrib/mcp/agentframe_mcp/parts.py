"""The `use: mcp` parts of the config in force, for the commands and the doctor."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from agentframe_core import Kind, PartConfig

from .options import McpConfigError, McpOptions
from .toolset import McpToolset

if TYPE_CHECKING:
    from agentframe_core.cli import App

__all__ = ["app_toolsets", "configured_toolsets"]


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


def app_toolsets(app: App) -> list[McpToolset]:
    """The toolsets of the config the `agentframe mcp` commands load: only the tool
    dispatchers (listing, calling and logging in need no model and no store); a bad server
    entry is said and exits 2, a usage error."""
    try:
        return configured_toolsets(app.part_lists()[Kind.TOOLS], app.config_path())
    except McpConfigError as err:
        click.secho(f"error: {err}", fg="red", err=True)
        sys.exit(2)
