"""Registers `agentframe trace`, and installs the OpenTelemetry providers when a stack is
built (`agentframe_stack_built`, a runtime hook: the plugin loads with every stack)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentframe_core import hookimpl

from .setup import install

if TYPE_CHECKING:
    import click

    from agentframe_core import Config


@hookimpl
def agentframe_stack_built(config: Config) -> None:
    block = config.data.get("telemetry")
    install(block if isinstance(block, dict) else None)


@hookimpl
def agentframe_commands(cli: click.Group) -> None:
    from .cli import trace

    cli.add_command(trace)
