"""Slash commands: a prompt a user names (`/review 42`) instead of typing it.

A plugin offers commands with the `agentframe_slash_commands(cwd)` hook; where they come from
(Markdown files, an MCP server's prompts) is the plugin's business. The kernel ranks them,
finds the one a user named (`agentframe run "/review 42"`, `/review 42` in `chat`), asks it
for the prompt and runs that prompt, with the command's tools and model.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .errors import AgentframeError

__all__ = ["CommandError", "CommandScan", "SlashCommand", "UnknownCommandError"]

#: Levels, best first: a project's command hides a user's of the same name, which hides a
#: plugin's. Unknown levels rank last.
COMMAND_LEVELS = ("project", "user", "plugin", "code")


class CommandError(AgentframeError):
    """A command that cannot be loaded or expanded: `where: message` (`where` is
    `file:line` when the command has a file)."""

    def __init__(self, message: str, *, where: str = "") -> None:
        self.where, self.reason = where, message
        super().__init__(f"{where}: {message}" if where else message)


class UnknownCommandError(CommandError, LookupError):
    """No command has this name; the message lists the names that exist."""

    def __init__(self, name: str, known: list[str]) -> None:
        self.name, self.known = name, known
        listed = ", ".join(f"/{n}" for n in known) or "none"
        super().__init__(f"unknown command /{name}; commands: {listed}")


@dataclass(frozen=True, slots=True)
class SlashCommand:
    """One command. `expand(arguments)` returns the prompt to run (it may read files or run
    a program: it is called only when the command is invoked, never to list it)."""

    #: Invoked as `/name`; letters, digits, `-`, `_`, `.` and `:` (`plugin:command`).
    name: str
    expand: Callable[[str], Awaitable[str]]
    description: str = ""
    #: What the arguments are (`[pr-number] [priority]`), for listings.
    argument_hint: str = ""
    #: The file it was read from, or another origin (`mcp:github`).
    source: str = ""
    #: `project`, `user`, `plugin` or `code`: how it ranks against commands of the same name.
    level: str = "code"
    #: How a listing groups it: `project:frontend`, `user`, `plugin commit-commands`.
    namespace: str = ""
    #: The only tools a run of this command may use (None: the agent's own).
    allowed_tools: tuple[str, ...] | None = None
    #: The adapter model for its run (None: the agent's or the stack's).
    model: str | None = None
    #: Other names it answers to when no command holds them (`frontend:component`).
    aliases: tuple[str, ...] = ()
    #: What the loader could not carry over, each naming the file and line.
    warnings: tuple[str, ...] = ()
    #: Format-specific details, shown by `commands show` (the allowed-tools as written, ...).
    meta: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class CommandScan:
    """What one `agentframe_slash_commands` implementation found: the commands, and the
    files it could not use (each `file:line: message`)."""

    commands: list[SlashCommand] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
