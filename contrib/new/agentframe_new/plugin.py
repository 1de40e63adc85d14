"""Registers `agentframe new`. Importing this module imports neither jinja2 nor the templates."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentframe_core import hookimpl

if TYPE_CHECKING:
    import click


@hookimpl
def agentframe_commands(cli: click.Group) -> None:
    from .cli import new

    cli.add_command(new)
