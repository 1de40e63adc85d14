"""Registers the `agentframe ui` command."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentframe_core import hookimpl

if TYPE_CHECKING:
    import click


@hookimpl
def agentframe_commands(cli: click.Group) -> None:
    from .cli import ui

    cli.add_command(ui)
