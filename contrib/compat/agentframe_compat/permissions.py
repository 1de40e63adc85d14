"""Claude Code's permission rules: `permissions.allow`, `ask`, `deny` and `defaultMode`.

A rule is a tool name (`Bash`, `mcp__github`, `mcp__github__*`) or a tool with a specifier:
`Bash(npm run test:*)` (a prefix; `*` elsewhere is a wildcard), `Read(./.env)` and
`Edit(src/**)` (gitignore-style paths: `//abs`, `~/home`, `/` from the settings file's
project, else from the working folder), `WebFetch(domain:example.com)`. Claude Code's order:
a matching `deny` rule wins, then `ask`, then `allow`; with none, the mode decides for Claude
Code's tools and MCP tools (read-only tools run, but `WebFetch` and `WebSearch`, and others,
ask in `default`; `acceptEdits` lets
edits run; `dontAsk` refuses what is not allowed; `bypassPermissions` runs everything a deny
rule does not stop) and `plan` refuses whatever writes; a stack's other tools run. `Edit`
rules cover every tool that edits files, `Read` rules every tool that reads them.

A Bash command is read as a shell reads it (`shellsplit.py`): every command it runs, those
in `$(…)`, backticks, `<(…)`, subshells and `sh -c '…'` included, and the files its
redirections write. A deny or ask rule matches when any command matches it (also without
its leading assignments, a wrapper such as `timeout 5` or `sudo`, git's options before the
sub-command, or the folder of the program's path); an allow rule allows only when every
command matches an allow rule and every file written (`> file`) matches an `Edit` allow
rule. A command that cannot be read without running it (`eval`, a command name from `$VAR`,
an unclosed quote) is never allowed by a `Bash(…)` rule: it asks (or is refused where
nobody can be asked), and asks even under a plain `Bash` allow rule when `Bash(…)` deny or
ask rules exist.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from .hosts import normal_host, url_host
from .names import claude_names
from .shellsplit import Script, SimpleCommand, split_script

__all__ = [
    "MODES",
    "Decision",
    "Rule",
    "RuleError",
    "Rules",
    "first_match",
    "parse_rule",
    "path_rule",
    "unreadable_command",
]

Action = Literal["allow", "ask", "deny"]
MODES = ("default", "acceptEdits", "plan", "dontAsk", "bypassPermissions")

#: Rules written for one of these tools cover the others too (Claude Code's tool families).
EDIT_TOOLS = frozenset({"Edit", "MultiEdit", "Write", "NotebookEdit"})
READ_TOOLS = frozenset({"Read", "Grep", "Glob", "LS", "NotebookRead"})

#: Claude Code's own tools: the mode decides for them (and MCP tools) when no rule matches;
#: a stack's other tools run as they would without Claude Code's settings (but in `plan`).
CLAUDE_TOOLS = EDIT_TOOLS | READ_TOOLS | {"Bash", "WebFetch", "WebSearch", "TodoWrite", "Task"}

#: Read-only tools that still ask (or, in `dontAsk`, are refused) with no rule allowing them,
#: as Claude Code's do: they reach any host.
NETWORK_TOOLS = frozenset({"WebFetch", "WebSearch"})

#: Tools whose specifiers the rules read.
ENFORCED_TOOLS = EDIT_TOOLS | READ_TOOLS | {"Bash", "WebFetch"}

_RULE = re.compile(r"^([A-Za-z0-9_.*-]+)(?:\((.*)\))?$", re.DOTALL)

#: Variables a command may be given (`LANG=C git log`) and still match an allow rule
#: written without them; any other assignment (`GIT_SSH_COMMAND=…`, `LD_PRELOAD=…`) must
#: be in the rule.
_HARMLESS_VARIABLES = frozenset(
    {
        "LANG",
        "LANGUAGE",
        "LC_ALL",
        "LC_MESSAGES",
        "TZ",
        "NO_COLOR",
        "FORCE_COLOR",
        "TERM",
        "COLUMNS",
        "CI",
        "RUST_BACKTRACE",
        "RUST_LOG",
        "PYTHONUNBUFFERED",
        "NODE_ENV",
    }
)
#: Commands after which a relative `> file` no longer lies where the rules would look.
_FOLDER_CHANGES = frozenset({"cd", "pushd", "popd"})


class RuleError(ValueError):
    """A rule that cannot be read (the message quotes it)."""


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule as written, where it was written, and the folder its `/paths` start from."""

    text: str
    tool: str
    spec: str | None
    source: str
    base: Path

    def covers(self, tool: str) -> bool:
        """Does the rule's tool part name `tool` (Claude Code's spelling)?"""
        if self.tool.startswith("mcp__"):
            pattern = self.tool.removesuffix("__*").removesuffix("*")
            server_wide = self.tool.endswith("*") or pattern.count("__") == 1
            return tool == pattern or (server_wide and tool.startswith(pattern.rstrip("_") + "__"))
        if self.tool == tool:
            return True
        families = (EDIT_TOOLS, READ_TOOLS)
        return self.spec is not None and any(self.tool in f and tool in f for f in families)


def parse_rule(text: str, source: str, base: Path) -> Rule:
    """`Bash(npm test:*)` -> Rule; a `RuleError` quoting what is wrong."""
    match = _RULE.match(text.strip()) if isinstance(text, str) else None
    if match is None:
        raise RuleError(f"{text!r} is not a rule (Tool or Tool(specifier))")
    tool, spec = match.group(1), match.group(2)
    if spec is not None and not spec.strip():
        spec = None  # `Bash()` is the whole tool, as in Claude Code
    if spec is not None and tool == "WebFetch" and not spec.startswith("domain:"):
        raise RuleError(f"{text!r}: WebFetch rules are WebFetch(domain:HOST)")
    return Rule(text.strip(), tool, spec, source, base)


@dataclass(frozen=True, slots=True)
class Decision:
    """What the rules decide for one call, and why (the rule, or the mode)."""

    action: Action
    why: str


@dataclass(slots=True)
class Rules:
    """The merged rules of every settings file (and an agent file's), and the mode."""

    allow: list[Rule]
    ask: list[Rule]
    deny: list[Rule]
    mode: str = "default"

    def decide(
        self,
        name: str,
        arguments: Mapping[str, Any],
        *,
        writes: bool,
        cwd: Path,
        hook_allowed: bool = False,
    ) -> Decision:
        """The decision for tool `name` (agentframe's name) called with `arguments`.
        `hook_allowed`: a PreToolUse hook said allow, which skips the mode's question but
        not a deny or ask rule."""
        names = claude_names(name)
        for action, rules in (("deny", self.deny), ("ask", self.ask)):
            rule = _first(rules, names, arguments, cwd, every=False)
            if rule is not None:
                return Decision(action, f"rule {rule.text!r} in {rule.source}")  # type: ignore[arg-type]
        unsure = unreadable_command(name, arguments)
        if unsure and any(r.spec and r.covers("Bash") for r in [*self.deny, *self.ask]):
            return Decision(
                "ask", f"the command cannot be checked against the Bash rules: {unsure}"
            )
        rule = _first(self.allow, names, arguments, cwd, every=True)
        if rule is not None:
            return Decision("allow", f"rule {rule.text!r} in {rule.source}")
        decision = self._by_mode(names[0], writes, hook_allowed)
        if unsure and decision.action != "allow":
            return Decision(decision.action, f"{decision.why}; {unsure}")
        return decision

    def _by_mode(self, tool: str, writes: bool, hook_allowed: bool) -> Decision:
        mode = self.mode
        if mode == "bypassPermissions" or hook_allowed:
            return Decision("allow", f"{mode} mode")
        if not writes and tool in NETWORK_TOOLS:  # read-only, but they reach any host
            if mode == "dontAsk":
                return Decision("deny", f"dontAsk mode; no rule allows {tool}")
            return Decision("ask", f"no rule allows {tool} ({mode} mode asks)")
        if not writes:
            return Decision("allow", f"{mode} mode")
        if mode != "plan" and tool not in CLAUDE_TOOLS and not tool.startswith("mcp__"):
            return Decision("allow", f"{tool} is no Claude Code tool: {mode} mode leaves it be")
        if mode == "acceptEdits" and tool in EDIT_TOOLS:
            return Decision("allow", "acceptEdits mode")
        if mode in ("plan", "dontAsk"):
            why = "plan mode allows only read-only tools" if mode == "plan" else "dontAsk mode"
            return Decision("deny", f"{why}; no rule allows {tool}")
        return Decision("ask", f"no rule allows {tool} ({mode} mode asks)")


def first_match(
    rules: Iterable[Rule], name: str, arguments: Mapping[str, Any], cwd: Path, *, every: bool
) -> Rule | None:
    """The first of `rules` matching a call of tool `name` (agentframe's name)."""
    return _first(rules, claude_names(name), arguments, cwd, every)


def unreadable_command(name: str, arguments: Mapping[str, Any]) -> str:
    """Why a Bash call's command cannot be checked against rules ("" when it can, or for
    another tool)."""
    if "Bash" not in claude_names(name):
        return ""
    return _script(str(arguments.get("command", ""))).unsure


def _first(
    rules: Iterable[Rule], names: list[str], arguments: Mapping[str, Any], cwd: Path, every: bool
) -> Rule | None:
    """The first rule matching the call. A Bash command matches an allow rule (`every`) only
    when each of its commands and written files matches one; a deny or ask rule when any
    does."""
    given = list(rules)
    rules = [r for r in given if any(r.covers(n) for n in names)]
    whole = next((r for r in rules if r.spec is None), None)
    if whole is not None:
        return whole
    if "Bash" in names:  # a deny Edit rule stops `> file` too: `given`'s Edit rules count
        edits = [r for r in given if r.tool in EDIT_TOOLS and r.spec is not None]
        if not rules and not edits:
            return None
        script = _script(str(arguments.get("command", "")))
        return _bash_match(rules, edits, script, cwd, every)
    if not rules:
        return None
    tool = next(n for n in names if any(r.covers(n) for r in rules))
    return next((r for r in rules if _matches(r, tool, arguments, cwd)), None)


@lru_cache(maxsize=64)
def _script(command: str) -> Script:
    """A command read once for all the rules it is checked against (never changed)."""
    return split_script(command)


def _bash_match(
    rules: list[Rule], edits: list[Rule], script: Script, cwd: Path, every: bool
) -> Rule | None:
    def written(target: str) -> Rule | None:
        path = Path(target).expanduser()
        if every and not path.is_absolute() and moves:
            return None  # after a `cd` a relative file is not where the rule looks
        args = {"file_path": str(path if path.is_absolute() else cwd / path)}
        return next((r for r in edits if _matches(r, "Edit", args, cwd)), None)

    moves = any(c.words[0] in _FOLDER_CHANGES for c in script.commands)
    if every:
        if script.unsure or not script.commands:
            return None
        found = [
            next((r for r in rules if _command_matches(r.spec or "", _allow_text(c))), None)
            for c in script.commands
        ]
        if not all(found) or not all(written(target) for target in script.writes):
            return None
        return found[0]
    for command in script.commands:
        texts = _deny_texts(command)
        rule = next(
            (r for r in rules if any(_command_matches(r.spec or "", t) for t in texts)), None
        )
        if rule is not None:
            return rule
    return next((r for r in map(written, script.writes) if r is not None), None)


def _allow_text(command: SimpleCommand) -> str:
    """The text an allow rule must match: with the assignments before the command unless
    each is harmless."""
    names = (a.split("=", 1)[0].rstrip("+") for a in command.assignments)
    if all(n in _HARMLESS_VARIABLES for n in names):
        return command.text
    return " ".join([*command.assignments, *command.words])


def _deny_texts(command: SimpleCommand) -> list[str]:
    """Each text a deny or ask rule is tried on: as written, with its assignments, and with
    the program's folder left out (`/bin/rm` is `rm`)."""
    texts = [command.text, " ".join([*command.assignments, *command.words])]
    program = command.words[0].rsplit("/", 1)[-1]
    if program != command.words[0]:
        texts.append(" ".join([program, *command.words[1:]]))
    return texts


def _matches(rule: Rule, tool: str, arguments: Mapping[str, Any], cwd: Path) -> bool:
    spec = rule.spec or ""
    if rule.tool == "WebFetch":
        host = url_host(str(arguments.get("url", "")))
        domain = spec.removeprefix("domain:").strip()
        domain = domain[2:] if domain.startswith("*.") else domain
        domain = normal_host(domain)
        return bool(host) and (host == domain or host.endswith("." + domain))
    if rule.tool in EDIT_TOOLS or rule.tool in READ_TOOLS:
        raw = arguments.get("file_path") or arguments.get("notebook_path") or arguments.get("path")
        path = Path(str(raw)) if raw else cwd
        target = (path if path.is_absolute() else cwd / path).resolve()
        return _path_matches(spec, target, rule.base, cwd)
    return False  # a specifier for a tool Claude Code gives none to (Task(...)): never matches


def _command_matches(spec: str, command: str) -> bool:
    """`npm run test:*` is a prefix; a `*` elsewhere matches anything; else the command
    must be the same."""
    if spec.endswith(":*"):
        return command.startswith(spec[:-2])
    if "*" in spec:
        pattern = ".*".join(re.escape(piece) for piece in spec.split("*"))
        return re.fullmatch(pattern, command, re.DOTALL) is not None
    return command == spec


def path_rule(rules: Iterable[Rule], path: Path, cwd: Path) -> Rule | None:
    """The first of `rules` (`Read(…)` or `Edit(…)` rules) whose pattern matches `path`, a
    real absolute path (a search's files: the walk asks once per file)."""
    return next((r for r in rules if r.spec and _path_matches(r.spec, path, r.base, cwd)), None)


def _path_matches(spec: str, target: Path, base: Path, cwd: Path) -> bool:
    """gitignore-style: `//abs`, `~/home`, `/from-the-project`, else from the working
    folder; a pattern without `/` matches a name at any depth."""
    if spec.startswith("//"):
        root, pattern = Path("/"), spec[2:]
    elif spec.startswith("~/"):
        root, pattern = Path.home(), spec[2:]
    elif spec.startswith("/"):
        root, pattern = base, spec[1:]
    else:
        root, pattern = cwd, spec.removeprefix("./")
    real, patterns = _compiled(root, pattern)
    try:
        relative = target.relative_to(real).as_posix()
    except ValueError:
        return False
    return any(p.fullmatch(relative) for p in patterns)


@lru_cache(maxsize=256)
def _compiled(root: Path, pattern: str) -> tuple[Path, tuple[re.Pattern[str], ...]]:
    """The real folder a pattern starts from, and the pattern's regexes (kept: a search
    tries every file it walks against each rule)."""
    if "/" not in pattern.rstrip("/"):
        pattern = "**/" + pattern
    pattern = pattern.rstrip("/") + ("/**" if pattern.endswith("/") else "")
    if pattern.endswith("/**"):  # a folder's contents: a search of the folder itself too
        return root.resolve(), (_glob(pattern), _glob(pattern[:-3]))
    return root.resolve(), (_glob(pattern),)


def _glob(pattern: str) -> re.Pattern[str]:
    out, i = "", 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
        elif pattern.startswith("**", i):
            out, i = out + ".*", i + 2
        elif pattern[i] == "*":
            out, i = out + "[^/]*", i + 1
        elif pattern[i] == "?":
            out, i = out + "[^/]", i + 1
        else:
            out, i = out + re.escape(pattern[i]), i + 1
    return re.compile(out, re.DOTALL)
