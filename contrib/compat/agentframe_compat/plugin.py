"""Registers the compat loaders (every registered loader is used when agents are found), the
Claude Code slash commands, the `cc-plugins` command, and the runtime hooks that run Claude
Code's hooks and permission rules (`runtime.py`).

A plugin implementing runtime hooks is imported with every stack: this module imports
nothing heavy, and each runtime hook imports `runtime` only when there is a settings file, a
plugin hooks file or an agent file's rule to apply (`settings.anything_to_read`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import click

from agentframe_core import CommandScan, PartConfig, Register, RunContext, ToolResult, hookimpl

from .settings import anything_to_read


def _runtime(ctx: RunContext) -> ModuleType | None:
    config = ctx.stack.config
    if not anything_to_read(config.file if config is not None else None):
        return None
    from . import runtime

    return runtime


@hookimpl
def agentframe_agent_loaders(register: Register) -> None:
    from .loaders import ClaudeLoader, CompatOptions, KigiLoader, PiLoader

    register("claude", ClaudeLoader, options=CompatOptions)
    register("pi", PiLoader, options=CompatOptions)
    register("kigi", KigiLoader, options=CompatOptions)


@hookimpl
def agentframe_slash_commands(
    cwd: Path, tool_parts: Callable[[], tuple[list[PartConfig], Path | None]]
) -> CommandScan:
    """The commands' programs run in the sandbox of the config's `Bash`, if it has one."""
    from .commands import ClaudeCommands, plugin_sources
    from .loaders import CompatOptions
    from .sandboxing import stack_sandbox

    scan = CommandScan()
    sources = plugin_sources(scan.errors)
    found = ClaudeCommands(CompatOptions()).scan(
        cwd, sources, lambda: stack_sandbox(tool_parts()[0])
    )
    return CommandScan(found.commands, [*scan.errors, *found.errors])


@hookimpl
def agentframe_commands(cli: click.Group) -> None:
    from .cli import cc_plugins

    cli.add_command(cc_plugins)


@hookimpl
def agentframe_plugin_mcp_servers() -> list[tuple[str, Path, list[Path], dict[str, Any]]]:
    """Each installed plugin's MCP server files and inline `mcpServers`, for agentframe-mcp."""
    from .plugins import plugin_mcp_servers

    return plugin_mcp_servers()


@hookimpl
def agentframe_gate_tool_call(ctx: RunContext, name: str, arguments: dict[str, Any]) -> Any:
    runtime = _runtime(ctx)
    return runtime.agentframe_gate_tool_call(ctx, name, arguments) if runtime else None


@hookimpl
def agentframe_hidden_files(ctx: RunContext, name: str, arguments: dict[str, Any]) -> Any:
    runtime = _runtime(ctx)
    return runtime.agentframe_hidden_files(ctx, name, arguments) if runtime else None


@hookimpl
def agentframe_tool_result(
    ctx: RunContext, name: str, arguments: dict[str, Any], result: ToolResult
) -> Any:
    runtime = _runtime(ctx)
    return runtime.agentframe_tool_result(ctx, name, arguments, result) if runtime else None


@hookimpl
def agentframe_prompt_submitted(ctx: RunContext, prompt: str) -> Any:
    runtime = _runtime(ctx)
    return runtime.agentframe_prompt_submitted(ctx, prompt) if runtime else None


@hookimpl
def agentframe_run_stopping(ctx: RunContext, reply: str, continued: int) -> Any:
    runtime = _runtime(ctx)
    return runtime.agentframe_run_stopping(ctx, reply, continued) if runtime else None


@hookimpl
def agentframe_session_started(ctx: RunContext, resumed: bool) -> Any:
    runtime = _runtime(ctx)
    return runtime.agentframe_session_started(ctx, resumed) if runtime else None


@hookimpl
def agentframe_session_ended(ctx: RunContext, reason: str) -> Any:
    runtime = _runtime(ctx)
    return runtime.agentframe_session_ended(ctx, reason) if runtime else None


@hookimpl
def agentframe_compacting(ctx: RunContext, trigger: str) -> Any:
    runtime = _runtime(ctx)
    return runtime.agentframe_compacting(ctx, trigger) if runtime else None


@hookimpl
def agentframe_notification(ctx: RunContext, message: str, kind: str) -> Any:
    runtime = _runtime(ctx)
    return runtime.agentframe_notification(ctx, message, kind) if runtime else None
