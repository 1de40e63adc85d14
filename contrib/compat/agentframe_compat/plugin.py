"""Registers the compat loaders (every registered loader is used when agents are found), the
Claude Code slash commands, and the `cc-plugins` command."""

from __future__ import annotations

from pathlib import Path

import click

from agentframe_core import CommandScan, Register, hookimpl

from .loaders import ClaudeLoader, CompatOptions, KigiLoader, PiLoader


@hookimpl
def agentframe_agent_loaders(register: Register) -> None:
    register("claude", ClaudeLoader, options=CompatOptions)
    register("pi", PiLoader, options=CompatOptions)
    register("kigi", KigiLoader, options=CompatOptions)


@hookimpl
def agentframe_slash_commands(cwd: Path) -> CommandScan:
    from .commands import ClaudeCommands, plugin_sources

    scan = CommandScan()
    sources = plugin_sources(scan.errors)
    found = ClaudeCommands(CompatOptions()).scan(cwd, sources)
    return CommandScan(found.commands, [*scan.errors, *found.errors])


@hookimpl
def agentframe_commands(cli: click.Group) -> None:
    from .cli import cc_plugins

    cli.add_command(cc_plugins)
