"""Registers the `llamacpp` adapter and the `agentframe llama` commands."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agentframe_core import Register, hookimpl

from .options import LlamaCppOptions

if TYPE_CHECKING:
    import click

    from agentframe_core import Config, Diagnosis


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


@hookimpl
def agentframe_doctor(config: Config) -> list[Diagnosis] | None:
    """The llama-server binary (portable or not) and where the models are or will come from."""
    if config.adapter.name != "llamacpp":
        return None
    from .doctor import diagnose

    return diagnose(config.adapter.options)
