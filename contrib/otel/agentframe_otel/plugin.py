"""Registers `agentframe trace`, and installs the OpenTelemetry providers when a stack is
built (through the kernel's `on_telemetry`).

It implements the runtime hook `agentframe_gate_tool_call` (refusing nothing: the cheapest
runtime hook, one call per tool call) only so that it loads with every stack, as
runtime-hook plugins do: loading it registers the listener before the stack's first run
starts its first span.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agentframe_core import hookimpl, on_telemetry

from .setup import install

if TYPE_CHECKING:
    import click

    from agentframe_core import RunContext

on_telemetry(install)


@hookimpl
def agentframe_gate_tool_call(ctx: RunContext, name: str, arguments: dict[str, Any]) -> None:
    """Refuses nothing (see the module's docstring)."""
    return None


@hookimpl
def agentframe_commands(cli: click.Group) -> None:
    from .cli import trace

    cli.add_command(trace)
