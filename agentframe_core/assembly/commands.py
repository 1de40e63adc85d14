"""Every slash command visible from a folder, and how one invocation becomes a run.

Commands come from the plugins implementing `agentframe_slash_commands` (only those are
imported, as the manifest says). Ranking, best first: level (`project`, `user`, `plugin`,
then the rest), then the order a plugin returned them in. The best command of a name wins;
an alias (`frontend:component`) answers only when no command has that name and no other
command has that alias, so a command a better one shadows (two folders' `help.md`) stays
reachable by its namespaced name.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..contract.commands import (
    COMMAND_LEVELS,
    CommandError,
    CommandScan,
    SlashCommand,
    UnknownCommandError,
)
from ..contract.configtypes import PartConfig
from ..contract.definition import AgentDefinition

if TYPE_CHECKING:
    from .plugins import PluginHost

__all__ = [
    "CommandCatalog",
    "command_agent",
    "find_commands",
    "parse_invocation",
]

HOOK = "agentframe_slash_commands"

#: `/name` then, after white space, the arguments. A path (`/etc/hosts ...`) is not a name.
#: What `find_commands` may be given to load the config's `tools` parts and its file.
ToolParts = Callable[[], tuple[list[PartConfig], Path | None]]

_INVOCATION = re.compile(r"^/([A-Za-z0-9_][A-Za-z0-9_.:-]*)(?:\s+(.*))?$", re.DOTALL)


@dataclass(frozen=True, slots=True)
class CommandCatalog:
    commands: dict[str, SlashCommand] = field(default_factory=dict)
    #: Lower-ranked commands of the same name, best first.
    shadowed: dict[str, tuple[SlashCommand, ...]] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)
    #: Files that could not be used (`file:line: message`), and plugins that failed.
    errors: list[str] = field(default_factory=list)

    def names(self) -> list[str]:
        return sorted(self.commands)

    def find(self, name: str) -> SlashCommand | None:
        found = self.commands.get(name)
        if found is None and name in self.aliases:
            target = self.aliases[name]
            same_name = (self.commands[target], *self.shadowed.get(target, ()))
            found = next(command for command in same_name if name in command.aliases)
        return found

    def alias_of(self, command: SlashCommand) -> str | None:
        """The alias that reaches `command`, if one does."""
        return next((alias for alias in command.aliases if self.find(alias) is command), None)

    def get(self, name: str) -> SlashCommand:
        """The command named (or aliased) `name`, else `UnknownCommandError`."""
        found = self.find(name)
        if found is None:
            raise UnknownCommandError(name, self.names())
        return found


def parse_invocation(text: str) -> tuple[str, str] | None:
    """`/review 42 high` -> ("review", "42 high"); None when `text` is not an invocation."""
    match = _INVOCATION.match(text.strip())
    if match is None:
        return None
    return match.group(1), (match.group(2) or "").strip()


def find_commands(
    host: PluginHost, cwd: Path, tool_parts: ToolParts | None = None
) -> CommandCatalog:
    """Ask every plugin implementing `agentframe_slash_commands` (a plugin that raises is
    an error of the catalog, never of the caller) and rank what they offer. `tool_parts`:
    the config's `tools` parts and file, loaded only when a plugin asks (None: no config)."""
    given = {"cwd": cwd.absolute(), "tool_parts": tool_parts or _no_tool_parts}
    host.load_implementers({HOOK})
    ranked: list[tuple[tuple[int, int, int], SlashCommand]] = []
    errors: list[str] = []
    caller = getattr(host.pm.hook, HOOK)
    for index, impl in enumerate(caller.get_hookimpls()):
        try:
            scan = impl.function(*[given[name] for name in impl.argnames])
        except Exception as err:  # one broken plugin must not hide the others' commands
            errors.append(f"plugin {impl.plugin_name}: {type(err).__name__}: {err}")
            continue
        if not isinstance(scan, CommandScan):
            continue
        errors.extend(scan.errors)
        for position, command in enumerate(scan.commands):
            ranked.append(((_level(command), index, position), command))
    ranked.sort(key=lambda item: item[0])
    return _catalog([command for _, command in ranked], errors)


def _no_tool_parts() -> tuple[list[PartConfig], Path | None]:
    return [], None


def _catalog(commands: list[SlashCommand], errors: list[str]) -> CommandCatalog:
    best: dict[str, SlashCommand] = {}
    shadowed: dict[str, list[SlashCommand]] = {}
    for command in commands:
        if command.name in best:
            shadowed.setdefault(command.name, []).append(command)
        else:
            best[command.name] = command
    claims: dict[str, list[SlashCommand]] = {}
    for command in commands:  # the shadowed too: their aliases reach them
        for alias in command.aliases:
            if alias not in best:
                claims.setdefault(alias, []).append(command)
    aliases = {alias: found[0].name for alias, found in claims.items() if len(found) == 1}
    return CommandCatalog(
        dict(sorted(best.items())),
        {name: tuple(found) for name, found in shadowed.items()},
        aliases,
        errors,
    )


def _level(command: SlashCommand) -> int:
    if command.level in COMMAND_LEVELS:
        return COMMAND_LEVELS.index(command.level)
    return len(COMMAND_LEVELS)


def command_agent(command: SlashCommand, agent: AgentDefinition | None) -> AgentDefinition | None:
    """The agent a run of `command` uses: `agent` (None: the default) narrowed to the
    command's tools, with the command's model. A command never widens what the agent may
    use: its tools outside the agent's are left out."""
    if command.allowed_tools is None and command.model is None:
        return agent
    base = agent or AgentDefinition(name="command", description=f"the /{command.name} command")
    update: dict[str, object] = {}
    if command.allowed_tools is not None:
        tools = [name for name in command.allowed_tools if base.allows(name)]
        update["tools"] = tools
        update["tool_name_overrides"] = {
            k: v for k, v in base.tool_name_overrides.items() if k in tools
        }
        update["param_name_overrides"] = {
            k: v for k, v in base.param_name_overrides.items() if k in tools
        }
    if command.model is not None:
        update["model"] = command.model
    return base.model_copy(update=update)


async def expand(command: SlashCommand, arguments: str) -> str:
    """The prompt of one invocation; a command that fails says which command failed."""
    try:
        return await command.expand(arguments)
    except CommandError:
        raise
    except Exception as err:
        where = command.source or f"/{command.name}"
        raise CommandError(f"/{command.name}: {type(err).__name__}: {err}", where=where) from err
