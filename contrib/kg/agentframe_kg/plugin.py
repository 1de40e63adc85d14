"""Registers `agentframe kg`. Importing this module imports neither rdflib nor pyshacl."""

from __future__ import annotations

import click

from agentframe_core import hookimpl


@hookimpl
def agentframe_commands(cli: click.Group) -> None:
    from .cli import kg

    cli.add_command(kg)
