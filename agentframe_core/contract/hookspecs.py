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

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from pathlib import Path

    import click

    from .commands import CommandScan
    from .configtypes import Config, PartConfig
    from .diagnosis import Diagnosis
    from .model import Entry
    from .protocols import RunContext
    from .registry import Register
    from .runtimehooks import HookVerdict
    from .tools import ToolResult

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
def agentframe_slash_commands(
    cwd: Path, tool_parts: Callable[[], tuple[list[PartConfig], Path | None]]
) -> CommandScan | None:
    """Offer slash commands (`/review 42` in `run` and `chat`) visible from the working folder
    `cwd`, with the files that could not be used. Every implementation is asked; a project's
    command hides a user's of the same name, which hides a plugin's.

    `tool_parts()` (take it only if needed: it loads the config in force, `--config` and
    `--profile` included) returns that config's `tools` parts and its file (None: no file);
    a caller without a config gives `([], None)`."""


@hookspec
def agentframe_commands(cli: click.Group) -> None:
    """Add sub-commands to the `agentframe` CLI (a click group): `@cli.command()` or
    `cli.add_command(...)`."""


@hookspec
def agentframe_check_config(config: Config) -> None:
    """Validate this plugin's own top-level block of `config` (agentframe-serve's `serve:`,
    agentframe-otel's `telemetry:`) for `agentframe config check`, raising the ConfigError
    `validate_block` raises. The plugin still validates the block where it uses it; this
    lets the check find the mistake before a run or a server does."""


@hookspec
def agentframe_doctor(config: Config) -> list[Diagnosis] | None:
    """Check what this plugin needs to run the stack `config` describes (a binary, a model, a
    reachable server) for `agentframe doctor`; None when the stack does not use the plugin."""


@hookspec
def agentframe_plugin_mcp_servers() -> list[tuple[str, Path, list[Path], dict[str, Any]]] | None:
    """The MCP servers the installed Claude Code plugins declare (agentframe-compat installs
    and reads the plugins; agentframe-mcp starts the servers, so neither imports the other):
    one `(plugin name, plugin folder, its .mcp.json files, the mcpServers of its plugin.json)`
    per plugin, the files and entries unread and unchecked. A plugin that cannot be read is
    logged and left out."""


# -- runtime hooks: called by the loop, any plugin may implement them ----------------------------
# An implementation may answer None, a string (the field each spec names), a `HookVerdict`, or
# an awaitable of one (a hook running a subprocess awaits it): `runtimehooks.py`.


@hookspec
def agentframe_prepare_context(ctx: RunContext, entries: list[Entry]) -> list[str] | None:
    """Return ids of claimed entries to drop from this run's context (e.g. notifications whose
    condition already resolved). The ids of every implementation are dropped."""


@hookspec
def agentframe_gate_tool_call(
    ctx: RunContext, name: str, arguments: dict[str, Any]
) -> str | HookVerdict | Awaitable[str | HookVerdict | None] | None:
    """Decide on a tool call before it runs (after the agent's allowlist and plan mode, before
    the schema check). A string is a reason to refuse it (the model gets it as the tool's
    error result). A `HookVerdict` may refuse (`block`), ask the person first (`ask`: the call
    runs only if they accept, through `RunContext.ask`; the `agentframe_notification` hook hears
    of it), run it with other `arguments`, or `stop` the run (refusing the call). The first
    stop, refusal or question in plugin order wins; the first `arguments` are used. None
    lets it run."""


@hookspec
def agentframe_hidden_files(
    ctx: RunContext, name: str, arguments: dict[str, Any]
) -> Callable[[Path], bool] | None:
    """A tool call that passed the gate walks folders (a search, a listing: the tool calls
    this hook itself, once per call): a test of a real absolute path, True for a file or
    folder the call must leave out (and not enter), e.g. one a permission rule forbids
    reading. The gate sees only the folder a call names; this covers what it finds inside.
    Every implementation's test applies; None: nothing to hide."""


@hookspec
def agentframe_prompt_submitted(
    ctx: RunContext, prompt: str
) -> str | HookVerdict | Awaitable[str | HookVerdict | None] | None:
    """A prompt given to `Session.run`, before it is queued. A string (or `block`) refuses it:
    it is not stored and the run ends `blocked` with that reason as its reply. `context` is
    text the model reads right after the prompt."""


@hookspec
def agentframe_tool_result(
    ctx: RunContext, name: str, arguments: dict[str, Any], result: ToolResult
) -> str | HookVerdict | Awaitable[str | HookVerdict | None] | None:
    """A tool call that passed the gate has run (`result.is_error` if it failed, its schema
    check included; `arguments` are those it ran with). A string (or `context`) is
    added to the result the model reads; `block` is feedback the model reads as an error
    beside it (the call already ran); `stop` ends the run after this reply's calls."""


@hookspec
def agentframe_run_stopping(
    ctx: RunContext, reply: str, continued: int
) -> str | HookVerdict | Awaitable[str | HookVerdict | None] | None:
    """The model answered without calling a tool and the run is about to end `completed`. A
    string (or `block`) is a reason not to stop: the model reads it and the run goes on.
    `continued` counts the times this run already went on so (a hook that always answers
    must look at it); after `MAX_STOP_CONTINUES` the run ends anyway, and `max_turns` bounds
    it too. A sub-agent's run calls it too: `ctx.parent` is then the parent session's id."""


@hookspec
def agentframe_session_started(
    ctx: RunContext, resumed: bool
) -> str | HookVerdict | Awaitable[str | HookVerdict | None] | None:
    """The first run of a `Session` object starts: `resumed` when the store already held the
    session. A string (or `context`) is text the model reads before the first prompt; a
    `block` or `stop` ends the run `blocked` before anything is stored."""


@hookspec
def agentframe_session_ended(ctx: RunContext, reason: str) -> Awaitable[None] | None:
    """`Session.end(reason)`: the conversation is over (`agentframe run` after its run with
    "other", `chat` on /exit with "prompt_input_exit")."""


@hookspec
def agentframe_compacting(ctx: RunContext, trigger: str) -> Awaitable[None] | None:
    """A context builder is about to compact the session (`RunContext.compacting`);
    `trigger` is "auto" (the window is full) or "manual"."""


@hookspec
def agentframe_notification(ctx: RunContext, message: str, kind: str) -> Awaitable[None] | None:
    """Something wants the person's attention: `kind` "permission_prompt" when a gate asks
    before a tool call (`message` says which)."""


@hookspec
def agentframe_stack_built(config: Config) -> None:
    """Called when a stack is built from `config`, before its first run: set up what the
    whole process shares, e.g. agentframe-otel its OpenTelemetry providers from the
    `telemetry:` block (the first call wins; later ones find them installed)."""


#: A run's stop is overruled by `agentframe_run_stopping` at most this many times.
MAX_STOP_CONTINUES = 8

#: Hooks the loop calls during a run; plugins implementing them load with every stack.
RUNTIME_HOOKS = frozenset(
    hook.__name__
    for hook in (
        agentframe_prepare_context,
        agentframe_gate_tool_call,
        agentframe_hidden_files,
        agentframe_prompt_submitted,
        agentframe_tool_result,
        agentframe_run_stopping,
        agentframe_session_started,
        agentframe_session_ended,
        agentframe_compacting,
        agentframe_notification,
        agentframe_stack_built,
    )
)
