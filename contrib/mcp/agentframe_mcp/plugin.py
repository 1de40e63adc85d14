"""Registers `use: mcp`, the `agentframe mcp` commands, the doctor check, servers' prompts as
slash commands and `@server:uri` resource mentions in prompts."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agentframe_core import HookVerdict, Register, RunContext, hookimpl

from .options import McpOptions

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable
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


@hookimpl
def agentframe_prompt_submitted(ctx: RunContext, prompt: str) -> Awaitable[HookVerdict] | None:
    """`@server:uri` mentions: the resources, read from the stack's servers, beside the prompt.
    A prompt without `@...://`, or a stack without `use: mcp`, costs a substring test."""
    if "@" not in prompt or "://" not in prompt:
        return None
    if not any(type(t).__module__.startswith("agentframe_mcp.") for t in ctx.stack.tools):
        return None
    from .mentions import read_mentions

    async def read() -> HookVerdict:
        return HookVerdict(context=await read_mentions(ctx, prompt) or "")

    return read()
