"""Registers the `submit`, `worker`, `status`, `result`, `send` and `cancel` commands.
Importing this module does not import DBOS."""

from __future__ import annotations

import click

from agentframe_core import hookimpl


@hookimpl
def agentframe_commands(cli: click.Group) -> None:
    from .cli import cancel, result, send, status, submit, worker

    for command in (submit, worker, status, result, send, cancel):
        cli.add_command(command)
