"""Registers `use: mcp`, the `agentframe mcp` commands and the doctor check."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agentframe_core import Register, hookimpl

from .options import McpOptions

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    import click

    from agentframe_core import CommandScan, Config, Diagnosis, PartConfig


def _build(options: McpOptions) -> Any:
    from .toolset import McpToolset

    return McpToolset(options)


@hookimpl
def agentframe_tool_dispatchers(register: Register) -> None:
    register("mcp", _build, options=McpOptions)


@hookimpl
def agentframe_commands(cli: click.Group) -> None:
    from .cli import mcp

    cli.add_command(mcp)


@hookimpl
def agentframe_doctor(config: Config) -> list[Diagnosis] | None:
    """Start each configured server once: report those that do not start, and why."""
    from .doctor import check_servers

    return check_servers(config)


@hookimpl
def agentframe_slash_commands(
    cwd: Path, tool_parts: Callable[[], tuple[list[PartConfig], Path | None]]
) -> CommandScan:
    """Each configured server's prompts as `/SERVER:PROMPT` (the servers start only now)."""
    from .commands import slash_commands

    return slash_commands(cwd, tool_parts)
