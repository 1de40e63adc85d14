"""Slash commands at the CLI: `agentframe run "/review 42"`, `/name` and the built-ins of
`chat`, and `agentframe commands list|show`.

A line that starts with `/name` is never sent to the model as it is: it is a built-in of the
chat, a command some plugin offers (expanded into its prompt), or an error listing both.
`//text` sends `/text` as a plain prompt.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from .app import App, emit_json, handle_errors, pass_app, utf8_argument, warn

if TYPE_CHECKING:
    from ..assembly.commands import CommandCatalog
    from ..contract.commands import SlashCommand
    from ..contract.configtypes import PartConfig
    from ..contract.definition import AgentDefinition
    from ..engine.session import Session

#: The chat's own commands, with what each does (`/help` lists them first).
BUILTINS: dict[str, str] = {
    "help": "list the chat's commands and the slash commands loaded here",
    "new": "start a new session (the old one stays in the store)",
    "session": "the session's id and size",
    "tools": "the tools the model sees",
    "agents": "the agents visible from here",
    "exit": "leave the chat (also /quit, Ctrl-D)",
}


def _catalog(app: App, cwd: Path) -> CommandCatalog:
    from ..assembly.commands import find_commands

    catalog = find_commands(app.host, cwd, lambda: _tool_parts(app))
    for error in catalog.errors:
        warn(f"skipped: {error}")
    return catalog


def _tool_parts(app: App) -> tuple[list[PartConfig], Path | None]:
    """The config's tool dispatchers and its file, for a plugin whose commands need them
    (MCP servers' prompts): no model or store plugin is needed to list commands."""
    from ..contract.registry import Kind

    return app.part_lists()[Kind.TOOLS], app.config_path()


def _find_agent(app: App, name: str | None, cwd: Path) -> AgentDefinition | None:
    if name is None:
        return None
    from ..assembly.catalog import find_agents

    return find_agents(app.host, app.config(), cwd).get(name)


def expand_prompt(
    app: App, text: str, agent_name: str | None, cwd: Path
) -> tuple[str, str | AgentDefinition | None]:
    """`run`'s prompt and agent: a `/command args` prompt becomes the command's prompt and
    the agent narrowed to its tools; any other prompt is left as it is."""
    from ..assembly.commands import command_agent, expand, parse_invocation

    if text.startswith("//"):
        return text[1:], agent_name
    invoked = parse_invocation(text)
    if invoked is None:
        return text, agent_name
    name, arguments = invoked
    command = _catalog(app, cwd).get(name)
    prompt = asyncio.run(expand(command, arguments))
    return prompt, command_agent(command, _find_agent(app, agent_name, cwd))


@dataclass(slots=True)
class ChatStep:
    """What one chat line asks for: leave, nothing more (a built-in did its work), or a run
    of `prompt` (an expanded command, its agent set on the session for that run)."""

    leave: bool = False
    prompt: str | None = None


class ChatCommands:
    """The `/...` lines of one chat. Holds the session, which `/new` replaces."""

    def __init__(self, app: App, session: Session) -> None:
        self.app, self.session = app, session
        self._agent = session.agent  # restored after a command's run

    async def handle(self, line: str) -> ChatStep | None:
        """None: not a command, send `line` as it is."""
        from ..assembly.commands import command_agent, expand, parse_invocation

        if line.startswith("//"):
            return ChatStep(prompt=line[1:])
        invoked = parse_invocation(line)
        if invoked is None:
            return None
        name, arguments = invoked
        if name in BUILTINS or name == "quit":
            return await self._builtin(name)
        catalog = _catalog(self.app, self.session.cwd)
        command = catalog.find(name)
        if command is None:
            known = ", ".join(f"/{n}" for n in [*BUILTINS, *catalog.names()])
            click.secho(f"error: unknown command /{name}; commands: {known}", fg="red", err=True)
            return ChatStep()
        prompt = await expand(command, arguments)
        self.session.agent = command_agent(command, self._agent)
        return ChatStep(prompt=prompt)

    def after_run(self) -> None:
        """A command's tools and model last for its run only."""
        self.session.agent = self._agent

    async def _builtin(self, name: str) -> ChatStep:
        if name in ("exit", "quit"):
            return ChatStep(leave=True)
        if name == "new":
            from ..engine.session import Session

            old = self.session
            self.session = Session(old.stack, agent=self._agent, cwd=old.cwd)
            click.secho(f"new session {self.session.id} (the last was {old.id})", dim=True)
        elif name == "session":
            await self._show_session()
        elif name == "tools":
            await self._show_tools()
        elif name == "agents":
            self._show_agents()
        else:
            self._show_help()
        return ChatStep()

    def _show_help(self) -> None:
        click.echo("chat commands:")
        for name, what in BUILTINS.items():
            click.echo(f"  /{name:<12} {what}")
        catalog = _catalog(self.app, self.session.cwd)
        if catalog.commands:
            click.echo("slash commands:")
        for command in catalog.commands.values():
            click.echo(f"  {_usage(command):<30} {_summary(command)}")
        click.echo("//text sends /text as a message")

    async def _show_session(self) -> None:
        infos = await self.session.stack.store.sessions()
        info = next((i for i in infos if i.id == self.session.id), None)
        size = f"{info.entries} entries" if info else "empty (nothing sent yet)"
        click.echo(f"session {self.session.id}: {size}")

    async def _show_tools(self) -> None:
        from ..contract.protocols import RunContext
        from ..engine.toolbox import Toolbox

        session = self.session
        ctx = RunContext(session.id, session.stack, session.agent)
        box = await Toolbox.collect(session.stack.tools, ctx)
        if not box.specs:
            click.echo("no tools: the model answers from what it knows")
        for spec in box.specs:
            click.echo(f"  {spec.name:<24} {_first_line(spec.description)}")

    def _show_agents(self) -> None:
        from ..assembly.catalog import find_agents

        catalog = find_agents(self.app.host, self.app.config(), self.session.cwd)
        current = self._agent.name if self._agent else None
        for definition in catalog.definitions:
            mark = "*" if definition.name == current else " "
            click.echo(f" {mark}{definition.name:<24} {_first_line(definition.description)}")
        for error in catalog.errors:
            warn(f"skipped: {error}")


def _first_line(text: str, width: int = 70) -> str:
    line = (text or "").strip().split("\n", 1)[0]
    return line if len(line) <= width else line[: width - 1] + "…"


def _usage(command: SlashCommand) -> str:
    return f"/{command.name} {command.argument_hint}".rstrip()


def _summary(command: SlashCommand) -> str:
    where = f" ({command.namespace})" if command.namespace else ""
    return _first_line(command.description, 60) + where


# -- agentframe commands list|show ----------------------------------------------------------------


@click.group()
def commands() -> None:
    """List and show the slash commands visible from here (`/name` in run and chat)."""


@commands.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for machines.")
@pass_app
def list_(app: App, as_json: bool) -> None:
    """Every command: usage, description, where it comes from. Broken files are reported on
    stderr and skipped."""
    from ..assembly.commands import find_commands

    with handle_errors():
        catalog = find_commands(app.host, Path.cwd(), lambda: _tool_parts(app))
        if as_json:
            emit_json(
                {
                    "commands": [_json(c) for c in catalog.commands.values()],
                    "aliases": catalog.aliases,
                    "errors": catalog.errors,
                }
            )
            return
        for error in catalog.errors:
            warn(f"skipped: {error}")
        if not catalog.commands:
            click.echo("no slash commands found")
        for command in catalog.commands.values():
            click.echo(f"{_usage(command)}  [{command.level}]  {_summary(command)}")
            click.secho(f"    {command.source}", dim=True)
            for shadowed in catalog.shadowed.get(command.name, ()):
                alias = catalog.alias_of(shadowed)
                reach = f" (as /{alias})" if alias else ""
                click.secho(f"    shadows [{shadowed.level}] {shadowed.source}{reach}", dim=True)


@commands.command()
@click.argument("name", callback=utf8_argument)
@click.option("--json", "as_json", is_flag=True, help="Print JSON for machines.")
@pass_app
def show(app: App, name: str, as_json: bool) -> None:
    """One command: every field, and its warnings. Nothing is expanded or run."""
    from ..assembly.commands import find_commands

    with handle_errors():
        command = find_commands(app.host, Path.cwd(), lambda: _tool_parts(app)).get(
            name.removeprefix("/")
        )
        if as_json:
            emit_json(_json(command))
            return
        for key, value in _json(command).items():
            if value not in (None, "", [], {}):
                click.echo(f"{key}: {value}")


def _json(command: SlashCommand) -> dict[str, Any]:
    return {
        "name": command.name,
        "description": command.description,
        "argument_hint": command.argument_hint,
        "source": command.source,
        "level": command.level,
        "namespace": command.namespace,
        "allowed_tools": (
            list(command.allowed_tools) if command.allowed_tools is not None else None
        ),
        "model": command.model,
        "aliases": list(command.aliases),
        "warnings": list(command.warnings),
        "meta": dict(command.meta),
    }
