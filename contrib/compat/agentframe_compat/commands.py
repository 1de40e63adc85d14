"""Claude Code's slash commands: `.claude/commands/**/*.md`, as Claude Code reads them.

Where: `.claude/commands/` in the working folder and each parent up to the repository root
(nearest first), then `~/.claude/commands/`, then each installed plugin's `commands/`. A file's
name is the command (`review.md` -> `/review`); a sub-folder only labels it
(`frontend/component.md` -> `/component`, shown as `project:frontend`, also reachable as
`/frontend:component`). A plugin's command is `/plugin:command`, and `/command` too while no
other command has that name.

Expansion, when the command is invoked (never when it is listed), in Claude Code's order:
`$ARGUMENTS` (all the arguments) and `$1`...`$9` (shell-like words) are replaced (arguments
given to a body without `$ARGUMENTS` are appended as `ARGUMENTS: ...`); each `` !`cmd` `` runs
in the project folder, only when `allowed-tools` permits that command (`Bash`, or
`Bash(git status:*)` for `git status ...`), and is replaced by its output; each `@path` naming
a file inside the project is attached after the prompt. A project's command runs its programs
only in a trusted folder (`agentframe_core.require_trust`); the user's and plugins' need not.
When the config's `use: claude-tools` sandboxes `Bash`, the programs run in that sandbox
(`sandboxing.py`), and fail, named, when it cannot be made.
The read-only git programs Claude Code runs without a rule stay inside the project: with
`--no-index`, a path leading outside it, or a shell expansion (`$HOME`, `{a,b}`) they are
refused, as an `@path` outside it is.

Everything is bounded, and every refusal names the file and line: the file's size, the
expanded prompt's size (a body with a thousand `$ARGUMENTS` cannot build gigabytes), the
number of programs, each program's time and output, the number and size of attached files.
Arguments are substituted into the text once and never re-read: an argument holding
`$ARGUMENTS`, `` !`cmd` `` or `$1` stays text.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentframe_core import (
    AgentDefinitionError,
    CommandError,
    CommandScan,
    FileReadError,
    PathEscapeError,
    SlashCommand,
    confined,
    project_dirs,
    read_text_file,
    require_trust,
)

from .lenient import read_lenient
from .loaders import MODEL_ALIASES_ENV, CompatOptions, map_model, split_outside_parentheses

if TYPE_CHECKING:
    from agentframe_claude_tools import SandboxOptions

__all__ = ["ClaudeCommands", "CommandLimits", "SandboxLookup", "expand_body"]

PROJECT_FOLDER = ".claude/commands"

_ARGUMENT = re.compile(r"\$(ARGUMENTS|\d+)")
_BASH = re.compile(r"!`([^`\n]+)`")
_FILE = re.compile(r"(?<![\w@`])@([\w./~-][^\s`'\"<>()\[\]{},;]*)")
_RULE = re.compile(r"^\s*([A-Za-z_][\w-]*)\s*(?:\((.*)\))?\s*$", re.DOTALL)
#: Shell syntax that chains, substitutes or redirects: only a plain `Bash` permits these.
_COMPOUND = re.compile(r"[;&|<>`\n]|\$\(")
#: Read-only programs Claude Code runs without a rule (its official `commit` command's
#: preamble needs them): git's status, diff, log, show and the current branch.
_READ_ONLY = re.compile(r"^git (status|diff|log|show|branch --show-current)(\s|$)")
#: Options that make those programs write a file or run another program.
_WRITES = re.compile(r"--(output|ext-diff|exec|textconv)")
#: Shell expansions a rule-free program may not hold: what they name is not known beforehand.
_EXPANSIONS = re.compile(r"[$\\{]")

#: The sandbox a command's programs run in, asked only when one runs (it loads the config).
SandboxLookup = Callable[[], "SandboxOptions | None"]


def _unsandboxed() -> SandboxOptions | None:
    return None


@dataclass(frozen=True, slots=True)
class CommandLimits:
    """The bounds of one command's files and of one expansion."""

    #: Characters of an expanded prompt, attached files included.
    prompt_chars: int = 1_000_000
    #: `` !`cmd` `` programs one expansion runs, seconds each, characters kept of each output.
    programs: int = 20
    program_seconds: float = 10.0
    program_chars: int = 30_000
    #: `@path` files attached, and bytes of each.
    files: int = 20
    file_bytes: int = 256 * 1024
    #: Command files listed per folder, and folder depth below `commands/`.
    listed: int = 2_000
    depth: int = 8


@dataclass(frozen=True, slots=True)
class _Source:
    folder: Path
    level: str
    #: The plugin's name for a plugin's commands, else None.
    plugin: str | None = None
    plugin_root: Path | None = None


class ClaudeCommands:
    """Finds Claude Code commands and builds `SlashCommand`s that expand them."""

    def __init__(
        self, options: CompatOptions | None = None, limits: CommandLimits | None = None
    ) -> None:
        self.options = options or CompatOptions()
        self.limits = limits or CommandLimits()

    def scan(
        self,
        cwd: Path,
        plugins: Sequence[tuple[str, Path, list[Path]]] = (),
        sandbox: SandboxLookup = _unsandboxed,
    ) -> CommandScan:
        """Every command visible from `cwd`: the project's, the user's, then each plugin's
        (`(name, root, command folders or files)`); their programs run in `sandbox()`."""
        sources = [_Source(d / PROJECT_FOLDER, "project") for d in project_dirs(cwd)]
        sources.append(_Source(Path.home() / PROJECT_FOLDER, "user"))
        for name, root, paths in plugins:
            sources.extend(_Source(path, "plugin", name, root) for path in paths)
        scan = CommandScan()
        seen: set[Path] = set()
        for source in sources:
            real = source.folder.resolve()
            if real in seen or not source.folder.exists():
                continue
            seen.add(real)
            for path in self._files(source, scan.errors):
                try:
                    scan.commands.append(self.load(path, source, cwd, sandbox))
                except (AgentDefinitionError, CommandError) as err:
                    scan.errors.append(str(err))
        return scan

    def _files(self, source: _Source, errors: list[str]) -> Iterator[Path]:
        """The `*.md` files under the source (or the source itself, a file), sorted; links
        that leave the folder are refused, named; folder links are not followed."""
        folder = source.folder
        if folder.is_file():
            yield folder
            return
        count = 0
        for top, dirs, files in os.walk(folder):
            here = Path(top)
            depth = len(here.relative_to(folder).parts)
            dirs[:] = sorted(d for d in dirs if depth < self.limits.depth)
            for entry in dirs:  # not followed; one that leads out is said
                self._escapes(here / entry, folder, errors)
            for name in sorted(f for f in files if f.endswith(".md")):
                path = here / name
                if self._escapes(path, folder, errors):
                    continue
                count += 1
                if count > self.limits.listed:
                    errors.append(
                        f"{folder}: more than {self.limits.listed} files; the rest skipped"
                    )
                    return
                yield path

    @staticmethod
    def _escapes(path: Path, folder: Path, errors: list[str]) -> bool:
        if not path.is_symlink():
            return False
        try:
            confined(path, [folder], "command file")
        except PathEscapeError as err:
            errors.append(f"{path}: refused: {err.reason}")
            return True
        return False

    def load(
        self, path: Path, source: _Source, cwd: Path, sandbox: SandboxLookup = _unsandboxed
    ) -> SlashCommand:
        """One file to a command; errors name the file and line."""
        fm, warnings = read_lenient(path, required=False)
        data = fm.data
        relative = path.relative_to(source.folder) if path != source.folder else Path(path.name)
        stem = relative.with_suffix("").name
        folders = relative.parent.parts
        line = fm.line_of

        def note(key: str, message: str) -> None:
            warnings.append(f"{path}:{line(key) or 1}: {key}: {message}")

        tools, rules = self._allowed(data.get("allowed-tools"), note)
        model = data.get("model")
        if isinstance(model, str) and _claude_model(model, self.options):
            note(
                "model",
                f"{model!r} is a Claude model, which this stack may not have; the agent's "
                f'model is used (map it with ${MODEL_ALIASES_ENV}="{model}=<model>")',
            )
            model = None
        elif isinstance(model, str):
            model = map_model(model, self.options, note)
        elif model is not None:
            note("model", f"not a model name ({type(model).__name__}); the agent's model is used")
            model = None
        if source.plugin:
            name = f"{source.plugin}:{stem}"
            aliases: tuple[str, ...] = (stem,)
            namespace = f"plugin {source.plugin}"
        else:
            name = stem
            aliases = (":".join([*folders, stem]),) if folders else ()
            namespace = ":".join([source.level, *folders])
        body = fm.body
        if source.plugin_root is not None:
            body = body.replace("${CLAUDE_PLUGIN_ROOT}", str(source.plugin_root))
        # A project's programs need its folder trusted: the one holding `.claude/commands`.
        owner = source.folder.parent.parent if source.level == "project" else None
        expansion = _Expansion(path, fm.body_line, body, rules, cwd, self.limits, owner, sandbox)
        return SlashCommand(
            name=name,
            expand=expansion.expand,
            description=_text(data.get("description")) or _first_line(fm.body),
            argument_hint=_hint(data.get("argument-hint")),
            source=str(path),
            level=source.level,
            namespace=namespace,
            allowed_tools=tools,
            model=model,
            aliases=aliases,
            warnings=tuple(warnings),
            meta={
                "allowed-tools": data.get("allowed-tools"),
                "disable-model-invocation": data.get("disable-model-invocation", False),
            },
        )

    def _allowed(self, value: Any, note: Any) -> tuple[tuple[str, ...] | None, list[str]]:
        """(the tools a run of the command may use, the `Bash(...)` rules of its programs).
        A rule with arguments permits programs, and cannot limit a tool the model calls: the
        tool is left out (narrower, never wider), with a warning."""
        if value is None:
            return None, []
        entries = split_outside_parentheses(value) if isinstance(value, str) else value
        if not isinstance(entries, list):
            note("allowed-tools", f"not a list of tools ({type(value).__name__}); no tools")
            return (), []
        tools: list[str] = []
        rules: list[str] = []
        for entry in entries:
            match = _RULE.match(str(entry))
            if match is None:
                note("allowed-tools", f"{entry!r} is not a tool name; left out")
                continue
            tool, argument = match.group(1), match.group(2)
            if tool == "Bash":
                rules.append(str(entry).strip())
            if argument is not None:
                note(
                    "allowed-tools",
                    f"{str(entry).strip()!r}: agentframe cannot limit a tool's arguments; "
                    f"left out of the run's tools, so {tool!r} is not allowed there",
                )
                continue
            tools.append(self.options.tool_aliases.get(tool, tool))
        return tuple(dict.fromkeys(tools)), rules


@dataclass(frozen=True, slots=True)
class _Expansion:
    path: Path
    first_line: int
    body: str
    rules: list[str]
    cwd: Path
    limits: CommandLimits
    owner: Path | None = None
    sandbox: SandboxLookup = _unsandboxed

    async def expand(self, arguments: str) -> str:
        sandbox = self.sandbox() if _BASH.search(self.body) else None
        return await expand_body(
            self.body, arguments, path=self.path, first_line=self.first_line,
            rules=self.rules, cwd=self.cwd, limits=self.limits, owner=self.owner,
            sandbox=sandbox,
        )  # fmt: skip


async def expand_body(
    body: str,
    arguments: str,
    *,
    path: Path,
    first_line: int,
    rules: list[str],
    cwd: Path,
    limits: CommandLimits,
    owner: Path | None = None,
    sandbox: SandboxOptions | None = None,
) -> str:
    """The prompt of one invocation (see the module docstring for the order and bounds).
    `owner`: the project folder whose command this is; its programs need it trusted.
    `sandbox`: where its programs run (None: unsandboxed)."""
    shown = [
        f"!`{m.group(1)}` ({path}:{first_line + body.count(chr(10), 0, m.start())})"
        for m in _BASH.finditer(body)
    ]
    if owner is not None and shown and not require_trust(owner, shown):
        raise CommandError(f"{owner} is not a trusted folder; its !`...` programs are not run")
    words = _words(arguments)
    budget = _Budget(limits.prompt_chars, path)
    parts: list[str] = []
    position = 0
    for programs, match in enumerate(_BASH.finditer(body), start=1):
        line = first_line + body.count("\n", 0, match.start())
        parts.append(_substitute(body[position : match.start()], arguments, words, budget, line))
        if programs > limits.programs:
            raise CommandError(
                f"more than {limits.programs} !`...` programs", where=f"{path}:{line}"
            )
        program = _substitute(match.group(1), arguments, words, budget, line)
        ran = await _run(program, rules, cwd, limits, f"{path}:{line}", sandbox)
        parts.append(budget.add(ran, line))
        position = match.end()
    tail_line = first_line + body.count("\n", 0, position)
    parts.append(_substitute(body[position:], arguments, words, budget, tail_line))
    prompt = "".join(parts)
    if arguments and not _ARGUMENT.search(body):
        prompt += budget.add(f"\n\nARGUMENTS: {arguments}", first_line)
    return prompt + _attachments(prompt, cwd, limits, budget, path, first_line)


class _Budget:
    """Characters of one expansion, counted as it is built."""

    def __init__(self, limit: int, path: Path) -> None:
        self.left, self.limit, self.path = limit, limit, path

    def add(self, text: str, line: int) -> str:
        self.left -= len(text)
        if self.left < 0:
            raise CommandError(
                f"the expanded prompt would exceed {self.limit} characters",
                where=f"{self.path}:{line}",
            )
        return text


def _words(arguments: str) -> list[str]:
    """The positional arguments: shell-like words (quotes group), else split on spaces."""
    try:
        return shlex.split(arguments)
    except ValueError:
        return arguments.split()


def _substitute(text: str, arguments: str, words: list[str], budget: _Budget, line: int) -> str:
    """One pass: what replaces a placeholder is never read again."""

    def value(match: re.Match[str]) -> str:
        key = match.group(1)
        if key == "ARGUMENTS":
            found = arguments
        else:
            index = int(key) if len(key) < 6 else 0
            found = words[index - 1] if 0 < index <= len(words) else ""
        return budget.add(found, line + text.count("\n", 0, match.start()))

    budget.add(text, line)
    return _ARGUMENT.sub(value, text)


def permitted(program: str, rules: list[str], project: Path) -> bool:
    """Does an `allowed-tools` rule permit running `program`? `Bash` permits any program;
    `Bash(git status:*)` one that is `git status` or starts with `git status `;
    `Bash(git status)` exactly that. A program that chains, pipes or redirects is permitted
    only by a plain `Bash`. The read-only git programs above need no rule while they stay in
    `project` (`rule_free_refusal`) and have no option that writes or runs something."""
    program = program.strip()
    if (
        _READ_ONLY.match(program)
        and not _COMPOUND.search(program)
        and _WRITES.search(program) is None
        and rule_free_refusal(program, project) is None
    ):
        return True
    for rule in rules:
        match = _RULE.match(rule)
        if match is None:
            continue
        pattern = match.group(2)
        if pattern is None:
            return True
        if _COMPOUND.search(program):
            continue
        pattern = pattern.strip()
        if pattern.endswith(":*"):
            prefix = pattern[:-2].rstrip()
            if program == prefix or program.startswith(prefix + " "):
                return True
        elif pattern.endswith("*"):
            if program.startswith(pattern[:-1]):
                return True
        elif program == pattern:
            return True
    return False


def rule_free_refusal(program: str, project: Path) -> str | None:
    """Why a read-only git program may not run without a rule, or None: `--no-index` (it
    compares any two files), a path argument (or an option's path value) that resolves
    outside `project`, links followed, or a shell expansion whose value is not known here."""
    if _EXPANSIONS.search(program):
        return "it holds a shell expansion ($, {, \\)"
    try:
        words = shlex.split(program)
    except ValueError:
        return "its quotes do not balance"
    root = project.resolve()
    for word in words[2:]:
        if word == "--no-index":
            return "--no-index reads files outside the repository"
        value = word
        if word.startswith("--"):
            value = word.partition("=")[2]
        elif word.startswith("-"):
            value = word[2:]
        if not value:
            continue
        target = Path(value).expanduser()
        if not (target if target.is_absolute() else root / target).resolve().is_relative_to(root):
            return f"{value!r} leads outside the project"
    return None


async def _run(
    program: str,
    rules: list[str],
    cwd: Path,
    limits: CommandLimits,
    where: str,
    sandbox: SandboxOptions | None,
) -> str:
    project = project_dirs(cwd)[-1]
    if not permitted(program, rules, project):
        allowed = ", ".join(rules) or "none"
        why = rule_free_refusal(program, project) if _READ_ONLY.match(program.strip()) else None
        raise CommandError(
            f"!`{program}` is not permitted by the command's allowed-tools (Bash rules: "
            f"{allowed})"
            + (f"; without a rule it would read outside the project: {why}" if why else ""),
            where=where,
        )
    from agentframe_claude_tools import UNSANDBOXED, SandboxUnavailableError, run_command

    root = project_dirs(cwd)[0]
    seconds, chars = limits.program_seconds, limits.program_chars
    try:
        result = await run_command(program, root, seconds, chars, sandbox or UNSANDBOXED)
    except SandboxUnavailableError as err:
        raise CommandError(f"!`{program}` was not run: {err}", where=where) from None
    return result.content.rstrip("\n")


def _attachments(
    prompt: str, cwd: Path, limits: CommandLimits, budget: _Budget, path: Path, line: int
) -> str:
    """Each `@path` that names a file in the project, attached once (an `@word` that names
    no file is prose: an e-mail, a handle, a decorator)."""
    project = project_dirs(cwd)[-1]
    attached: list[str] = []
    seen: set[Path] = set()
    for match in _FILE.finditer(prompt):
        reference = match.group(1).rstrip(".:!?")
        candidate = Path(reference).expanduser()
        candidate = candidate if candidate.is_absolute() else cwd / candidate
        if not candidate.is_file() and not candidate.is_symlink():
            continue
        where = f"{path}:{line + prompt.count(chr(10), 0, match.start())}"
        try:
            real = confined(candidate, [project], "file reference")
        except PathEscapeError as err:
            raise CommandError(f"@{reference}: {err.reason}", where=where) from None
        if real in seen:
            continue
        seen.add(real)
        if len(seen) > limits.files:
            raise CommandError(f"more than {limits.files} @file references", where=where)
        try:
            text = read_text_file(real, limits.file_bytes, "file reference")
        except FileReadError as err:
            raise CommandError(f"@{reference}: {err.reason}", where=where) from None
        attached.append(budget.add(f'\n\n<file path="{reference}">\n{text}\n</file>', line))
    return "".join(attached)


def _claude_model(model: str, options: CompatOptions) -> bool:
    """A full Claude model id (`claude-sonnet-4-0`) not mapped by `model_aliases`: projects'
    commands name them, and a run on another backend would fail on it."""
    name = model.strip()
    return name.lower().startswith("claude-") and name not in options.model_aliases


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else str(value) if value is not None else ""


def _hint(value: Any) -> str:
    """`argument-hint: [message]` is a YAML list; Claude Code shows it as written."""
    if isinstance(value, list):
        return " ".join(f"[{item}]" for item in value)
    return _text(value)


def _first_line(body: str) -> str:
    for line in body.splitlines():
        if line.strip():
            return line.strip().lstrip("#").strip()
    return ""


def plugin_sources(errors: list[str]) -> list[tuple[str, Path, list[Path]]]:
    """(name, folder, command paths) of every installed plugin; a plugin whose plugin.json
    became unusable is an error of the scan, never hides the other commands."""
    from .plugins import PluginError, installed_plugins, plugin_parts

    sources = []
    for plugin in installed_plugins():
        try:
            sources.append((plugin.name, plugin.root, plugin_parts(plugin).commands))
        except PluginError as err:
            errors.append(str(err))
    return sources
