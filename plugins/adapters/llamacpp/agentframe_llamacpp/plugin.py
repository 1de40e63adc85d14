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
    """Is there a llama-server, and where are the models (or where will they come from)?"""
    from agentframe_core import Diagnosis

    from .binary import find_binary
    from .errors import BinaryNotFoundError
    from .runtime import LlamaRuntime

    if config.adapter.name != "llamacpp":
        return None
    options = config.adapter.options
    try:
        found = [Diagnosis("llama-server", True, str(find_binary(options.binary_path)))]
    except BinaryNotFoundError as err:
        found = [Diagnosis("llama-server", False, "no llama-server binary", str(err))]
    for row in LlamaRuntime(options).status():
        where = row["file"] or (
            f"not fetched yet: {row['origin']} is fetched on first use (`agentframe llama pull`)"
        )
        state = f"; running at {row['url']}" if row["running"] else ""
        found.append(Diagnosis(f"model {row['model']}", True, f"{where}{state}"))
    return found
