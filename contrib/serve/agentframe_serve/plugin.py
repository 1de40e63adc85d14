"""Registers the `agentframe serve` command, and checks the `serve:` block for `agentframe
config check`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentframe_core import hookimpl

if TYPE_CHECKING:
    import click

    from agentframe_core import Config


@hookimpl
def agentframe_check_config(config: Config) -> None:
    from .settings import serve_settings

    serve_settings(config)


@hookimpl
def agentframe_commands(cli: click.Group) -> None:
    from .cli import serve

    cli.add_command(serve)
