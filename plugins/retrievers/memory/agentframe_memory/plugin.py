"""Registers `memory-bm25` as a retriever and as a tool dispatcher, and `agentframe memory`.
Importing this module imports neither bm25s nor numpy."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agentframe_core import Register, hookimpl

from .options import MemoryOptions

if TYPE_CHECKING:
    import click


def _retriever(options: MemoryOptions) -> Any:
    from .retriever import MemoryRetriever

    return MemoryRetriever(options)


def _tools(options: MemoryOptions) -> Any:
    from .tools import MemoryTools

    return MemoryTools(options)


@hookimpl
def agentframe_retrievers(register: Register) -> None:
    register("memory-bm25", _retriever, options=MemoryOptions)


@hookimpl
def agentframe_tool_dispatchers(register: Register) -> None:
    register("memory-bm25", _tools, options=MemoryOptions)


@hookimpl
def agentframe_commands(cli: click.Group) -> None:
    from .cli import memory

    cli.add_command(memory)
