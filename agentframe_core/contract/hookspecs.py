"""The plugin contract: every hook agentframe calls, and what it expects back.

A plugin is a module of `@hookimpl` functions, found through the entry-point group
`agentframe`. Registration hooks are called once per plugin when a stack is built; each gets a
`register(name, factory, options=None)` callable:

- `name` is what a config selects with `use: <name>`;
- `options` is a pydantic model that validates the rest of that YAML block;
- `factory(options)` returns the part, given the validated model instance (or a plain dict
  when no model was given).

A part reaches the other parts of its stack only at run time: a method that runs inside a
session receives a `RunContext` (`ctx`), whose `ctx.stack` holds every other part. A plugin
package may reuse another plugin package's code as a library only when its pyproject.toml
declares that package as a dependency, with the reason beside it (agentframe-llamacpp builds
on agentframe-adapter-openai's client: llama-server speaks the OpenAI protocol).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from pathlib import Path

    import click

    from .commands import CommandScan
    from .configtypes import Config
    from .diagnosis import Diagnosis
    from .model import Entry
    from .protocols import RunContext
    from .registry import Register

PROJECT = "agentframe"

hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


# -- registration: one hook per extension point ------------------------------------------------


@hookspec
def agentframe_adapters(register: Register) -> None:
    """Register LLM adapters (the `LLMAdapter` protocol); selected by `adapter: {use: ...}`."""


@hookspec
def agentframe_stores(register: Register) -> None:
    """Register session stores (the `Store` protocol); selected by `store: {use: ...}`."""


@hookspec
def agentframe_context_builders(register: Register) -> None:
    """Register context builders (`ContextBuilder`); selected by `context: {use: ...}`."""


@hookspec
def agentframe_retrievers(register: Register) -> None:
    """Register retrievers (`Retriever`); selected by entries of `retrievers: [...]`."""


@hookspec
def agentframe_tool_dispatchers(register: Register) -> None:
    """Register tool dispatchers (`ToolDispatcher`); selected by entries of `tools: [...]`."""


@hookspec
def agentframe_agent_loaders(register: Register) -> None:
    """Register agent-definition loaders (`AgentLoader`); every registered loader is used."""


@hookspec
def agentframe_slash_commands(cwd: Path) -> CommandScan | None:
    """Offer slash commands (`/review 42` in `run` and `chat`) visible from the working folder
    `cwd`, with the files that could not be used. Every implementation is asked; a project's
    command hides a user's of the same name, which hides a plugin's."""


@hookspec
def agentframe_commands(cli: click.Group) -> None:
    """Add sub-commands to the `agentframe` CLI (a click group): `@cli.command()` or
    `cli.add_command(...)`."""


@hookspec
def agentframe_doctor(config: Config) -> list[Diagnosis] | None:
    """Check what this plugin needs to run the stack `config` describes (a binary, a model, a
    reachable server) for `agentframe doctor`; None when the stack does not use the plugin."""


# -- runtime hooks: called by the loop, any plugin may implement them ----------------------------


@hookspec
def agentframe_prepare_context(ctx: RunContext, entries: list[Entry]) -> list[str] | None:
    """Return ids of claimed entries to drop from this run's context (e.g. notifications whose
    condition already resolved). The ids of every implementation are dropped."""


@hookspec(firstresult=True)
def agentframe_gate_tool_call(ctx: RunContext, name: str, arguments: dict[str, Any]) -> str | None:
    """Return a reason to refuse a tool call before it runs (the reason goes back to the model
    as the tool's error result), or None to let it run. The first reason wins."""


#: Hooks the loop calls during a run; plugins implementing them load with every stack.
RUNTIME_HOOKS = frozenset({agentframe_prepare_context.__name__, agentframe_gate_tool_call.__name__})
