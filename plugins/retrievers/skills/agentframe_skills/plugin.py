"""Registers `skills` as a retriever (preloading) and a tool dispatcher (`load_skill`), and
`agentframe skills`. Importing this module imports neither bm25s nor numpy."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agentframe_core import Register, hookimpl

from .options import SkillsOptions

if TYPE_CHECKING:
    import click


def _retriever(options: SkillsOptions) -> Any:
    from .retriever import SkillsRetriever

    return SkillsRetriever(options)


def _tools(options: SkillsOptions) -> Any:
    from .tools import SkillTools

    return SkillTools(options)


@hookimpl
def agentframe_retrievers(register: Register) -> None:
    register("skills", _retriever, options=SkillsOptions)


@hookimpl
def agentframe_tool_dispatchers(register: Register) -> None:
    register("skills", _tools, options=SkillsOptions)


@hookimpl
def agentframe_commands(cli: click.Group) -> None:
    from .cli import skills

    cli.add_command(skills)
