"""agentframe hooks: the `agentfs` adapter and the `agent-mode` commands."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agentframe_core import Register, hookimpl

if TYPE_CHECKING:
    import click

    from .adapter import AgentFSOptions


def _build(options: AgentFSOptions) -> Any:
    from .adapter import AgentFSAdapter

    return AgentFSAdapter(options)


@hookimpl
def agentframe_adapters(register: Register) -> None:
    from .adapter import AgentFSOptions

    register("agentfs", _build, options=AgentFSOptions)


@hookimpl
def agentframe_commands(cli: click.Group) -> None:
    from .cli import agent_mode

    cli.add_command(agent_mode)
