"""Each prompt of each configured MCP server as a slash command `/SERVER:PROMPT`.

Listing starts the config's servers (only when commands are listed or one is invoked: a
chat's `/help`, `agentframe commands list`, `/name ...`), at most LIST_TIMEOUT seconds in
all, in a thread of its own (a chat's event loop may be running), and closes them; a server
that does not start is a warning of the listing. A listing in which every server answered is
kept for LIST_CACHE_SECONDS, per process and per set of servers (same names, same commands,
URLs and options), so a chat starts its servers once for `/help` and the commands after it.
Invoking a command starts its server again, renders the prompt (`prompts/get`) and closes it.

Arguments: `name=value` where `name` is one the prompt declares; any other word (shell
quoting: `"two words"`) fills the next argument not yet given, in the order the prompt
declares them. A missing required argument, or more words than arguments, is a
`CommandError` naming them.
"""

from __future__ import annotations

import asyncio
import re
import shlex
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from agentframe_core import CommandError, CommandScan, PartConfig, SlashCommand

from .connection import State
from .options import McpConfigError
from .parts import configured_toolsets
from .prompts import list_prompts, render_prompt
from .toolset import McpToolset

__all__ = ["MAX_COMMANDS", "MAX_PROMPT_CHARS", "parse_arguments", "slash_commands"]

#: Seconds the whole listing may take (every server's start and its prompts/list).
LIST_TIMEOUT = 60.0
#: Seconds a listing in which every server answered is reused.
LIST_CACHE_SECONDS = 300.0
#: Commands offered in all; more prompts are left out with a warning.
MAX_COMMANDS = 500
#: Characters a rendered prompt may have; a longer one is an error, not a prompt.
MAX_PROMPT_CHARS = 200_000

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")

ToolParts = Callable[[], tuple[list[PartConfig], Path | None]]


def slash_commands(cwd: Path, tool_parts: ToolParts) -> CommandScan:
    try:
        tools, config_file = tool_parts()
        toolsets = configured_toolsets(tools, config_file, cwd)
    except McpConfigError as err:
        return CommandScan(errors=[f"mcp: {err}"])
    notes = [note for toolset in toolsets for note in toolset.notes]
    if not any(t.connections for t in toolsets):
        return CommandScan(errors=notes)
    key = _servers_key(cwd, toolsets)
    cached = _LISTED.get(key)
    errors: list[str]
    if cached is not None and time.monotonic() - cached[0] < LIST_CACHE_SECONDS:
        found, errors = cached[1], []
    else:
        found, errors = _listed(toolsets)
        if not errors:
            _LISTED[key] = (time.monotonic(), found)
    commands: list[SlashCommand] = []
    for toolset, prompt in found:
        if len(commands) >= MAX_COMMANDS:
            errors.append(f"mcp: more than {MAX_COMMANDS} prompts; the rest are left out")
            break
        commands.append(_command(toolset, cwd, prompt))
    return CommandScan(commands=commands, errors=[*notes, *errors])


Found = list[tuple[McpToolset, dict[str, Any]]]

#: Listings in which every server answered: servers key -> (when, prompts).
_LISTED: dict[str, tuple[float, Found]] = {}


def _servers_key(cwd: Path, toolsets: list[McpToolset]) -> str:
    """What the listing depends on: the folder, every server's name and configuration, and
    the options its toolset runs it with (held in memory only: env values are secrets)."""
    return f"{cwd.resolve()}\n" + "\n".join(
        f"{name}={connection.config.model_dump_json()};{toolset.options.model_dump_json()}"
        for toolset in toolsets
        for name, connection in sorted(toolset.connections.items())
    )


def _listed(toolsets: list[McpToolset]) -> tuple[Found, list[str]]:
    """Every prompt of every server (started now, in a thread, and closed), and the errors."""
    found: Found = []
    errors: list[str] = []

    def work() -> None:
        try:
            asyncio.run(asyncio.wait_for(_gather(toolsets, found, errors), LIST_TIMEOUT))
        except TimeoutError:
            errors.append(f"mcp: listing prompts took over {LIST_TIMEOUT:g} s; stopped")
        except Exception as err:  # a listing must never fail the caller
            errors.append(f"mcp: {type(err).__name__}: {err}")

    thread = threading.Thread(target=work, name="mcp-prompts", daemon=True)
    thread.start()
    thread.join(LIST_TIMEOUT + 10)
    return found, errors


async def _gather(toolsets: list[McpToolset], found: Found, errors: list[str]) -> None:
    try:
        await asyncio.gather(*(t.start() for t in toolsets))
        for toolset in toolsets:
            for name, connection in toolset.connections.items():
                if connection.state is not State.READY:
                    error = connection.status().get("error") or connection.state.value
                    errors.append(f"mcp server {name} did not start: {error}")
                    continue
                if "prompts" not in connection.offers:
                    continue
                try:
                    prompts = await list_prompts(connection)
                except Exception as err:  # one server's failure hides only its prompts
                    errors.append(f"mcp server {name}: prompts/list: {type(err).__name__}: {err}")
                    continue
                found.extend((toolset, prompt) for prompt in prompts)
    finally:
        await asyncio.gather(*(t.aclose() for t in toolsets), return_exceptions=True)


def _command(toolset: McpToolset, cwd: Path, prompt: dict[str, Any]) -> SlashCommand:
    server, name = prompt["server"], prompt["name"]
    declared: list[dict[str, Any]] = prompt["arguments"]
    command_name = f"{_UNSAFE.sub('-', server)}:{_UNSAFE.sub('-', name)}"
    options, base, config_file = toolset.options, toolset._base, toolset._config_file

    async def expand(arguments: str) -> str:
        given = parse_arguments(f"/{command_name}", declared, arguments)
        fresh = McpToolset(options, cwd, base, config_file=config_file, config_known=True)
        try:
            connection = fresh.connections.get(server)
            if connection is None:
                raise CommandError(f"/{command_name}: MCP server {server} is no longer configured")
            text = await render_prompt(connection, name, given)
        finally:
            await fresh.aclose()
        if len(text) > MAX_PROMPT_CHARS:
            raise CommandError(
                f"/{command_name}: the rendered prompt has {len(text)} characters, over the "
                f"{MAX_PROMPT_CHARS} allowed"
            )
        return text

    hint = " ".join(f"{a['name']}=..." if a["required"] else f"[{a['name']}=...]" for a in declared)
    return SlashCommand(
        name=command_name,
        expand=expand,
        description=str(prompt["description"])[:500],
        argument_hint=hint,
        source=f"mcp:{server}",
        level="plugin",
        namespace=f"mcp {server}",
        aliases=(f"mcp__{_UNSAFE.sub('-', server)}__{_UNSAFE.sub('-', name)}",),  # Claude Code's
        meta={"server": server, "prompt": name, "arguments": declared},
    )


def parse_arguments(
    command: str, declared: Sequence[dict[str, Any]], arguments: str
) -> dict[str, str]:
    """`a=1 two` against declared `[a, b]` -> `{a: 1, b: two}` (see the module's doc)."""
    try:
        words = shlex.split(arguments)
    except ValueError as err:
        raise CommandError(f"{command}: cannot read the arguments: {err}") from err
    names = [str(a["name"]) for a in declared]
    given: dict[str, str] = {}
    loose: list[str] = []
    for word in words:
        key, sep, value = word.partition("=")
        if sep and key in names:
            given[key] = value
        else:
            loose.append(word)
    for word in loose:
        free = [n for n in names if n not in given]
        if not free:
            raise CommandError(
                f"{command}: too many arguments ({word!r} left over); it takes: "
                + (", ".join(names) or "none")
            )
        given[free[0]] = word
    missing = [str(a["name"]) for a in declared if a["required"] and a["name"] not in given]
    if missing:
        raise CommandError(f"{command}: missing required argument(s): {', '.join(missing)}")
    return given
