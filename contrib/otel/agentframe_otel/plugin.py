"""Registers `agentframe trace`, installs the OpenTelemetry providers when a stack is built
(`agentframe_stack_built`, a runtime hook: the plugin loads with every stack), and checks the
`telemetry:` block for `agentframe config check`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentframe_core import hookimpl

from .settings import parse_settings
from .setup import install

if TYPE_CHECKING:
    import click

    from agentframe_core import Config


@hookimpl
def agentframe_stack_built(config: Config) -> None:
    """A wrong `telemetry:` block stops the build with a config error (file, line, field), as
    any wrong option does: tracing silently off is found only when the traces are missing."""
    settings = parse_settings(config.data, config.file, config.profile)
    block = config.data.get("telemetry")
    install(block if isinstance(block, dict) else None, settings)


@hookimpl
def agentframe_check_config(config: Config) -> None:
    parse_settings(config.data, config.file, config.profile)


@hookimpl
def agentframe_commands(cli: click.Group) -> None:
    from .cli import trace

    cli.add_command(trace)
