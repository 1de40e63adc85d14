"""Registers the `llamacpp` adapter and the `agentframe llama` commands."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agentframe_core import hookimpl
from agentframe_core.registry import Register

from .options import LlamaCppOptions

if TYPE_CHECKING:
    import click


def _build(options: LlamaCppOptions) -> Any:
    from .adapter import LlamaCppAdapter

    return LlamaCppAdapter(options)


@hookimpl
def agentframe_adapters(register: Register) -> None:
    register("llamacpp", _build, options=LlamaCppOptions)


@hookimpl
def agentframe_commands(cli: click.Group) -> None:
    from .cli import llama

    cli.add_command(llama)
