"""Loaders for the agent files of Claude Code, pi and kigi.

Each reads Markdown with YAML frontmatter from its tool's folders, translates what differs
from agentframe's format, and hands the result to the kernel's validation, so errors are the
same typed errors with file and line. What cannot be carried over is said in a warning, never
silently dropped or silently widened:

- `tools` entries with argument restrictions (`Bash(git:*)`, `Read(src/**)`) are enforced at
  the tool gate with Claude Code's rule syntax (`agentrules.py`); where the tool is renamed
  through `tool_aliases`, or the rule cannot be read (`Agent(worker)` is no rule agentframe
  can check), they cannot be: in an allowlist they are left out (narrower), in a denylist
  the whole tool is denied (also narrower).
- model aliases (`sonnet`, `opus`, `haiku`, ...) mean nothing to an arbitrary backend: mapped
  through `model_aliases`, else the stack's model is used, with a warning.
- keys agentframe does not have (`color`, `hooks`, `thinking`, ...) are unknown-key warnings.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from agentframe_core import (
    AgentDefinition,
    AgentDefinitionError,
    AgentScan,
    FolderLoader,
    Frontmatter,
    definition_from_frontmatter,
    read_frontmatter,
)

from .agentrules import agent_rules_of, record_agent_rules
from .lenient import read_lenient
from .permissions import ENFORCED_TOOLS, RuleError, parse_rule
from .plugins import PluginError, installed_plugins, plugin_parts

__all__ = [
    "ClaudeLoader",
    "CompatLoader",
    "CompatOptions",
    "KigiLoader",
    "PiLoader",
    "map_model",
    "split_outside_parentheses",
]

MODEL_ALIASES_ENV = "AGENTFRAME_MODEL_ALIASES"
TOOL_ALIASES_ENV = "AGENTFRAME_TOOL_ALIASES"

#: Claude Code's model aliases: they name a model family, not a model any backend knows.
CLAUDE_MODEL_ALIASES = frozenset({"sonnet", "opus", "haiku", "opusplan", "default", "sonnet[1m]"})

_RESTRICTED = re.compile(r"^\s*([^()\s]+)\s*\((.*)\)\s*$", re.DOTALL)

Note = Callable[[str, str], None]


def parse_pairs(text: str, source: str) -> dict[str, str]:
    """`sonnet=qwen2.5-7b, haiku=qwen2.5-0.5b` -> a dict; a malformed pair is an error."""
    pairs: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, sep, value = item.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise ValueError(f"{source}: {item!r} is not a name=value pair")
        pairs[key.strip()] = value.strip()
    return pairs


def _from_env(variable: str) -> Callable[[], dict[str, str]]:
    return lambda: parse_pairs(os.environ.get(variable, ""), f"${variable}")


class CompatOptions(BaseModel):
    """Both default to environment variables, so the CLI can set them:
    `AGENTFRAME_MODEL_ALIASES="sonnet=qwen2.5-coder-7b,haiku=qwen2.5-0.5b"` and
    `AGENTFRAME_TOOL_ALIASES="Read=read_file,Grep=grep"`."""

    model_config = ConfigDict(extra="forbid")

    #: Model alias -> the adapter model to use for it.
    model_aliases: dict[str, str] = Field(default_factory=_from_env(MODEL_ALIASES_ENV))
    #: Tool name as the file writes it -> the stack's tool name.
    tool_aliases: dict[str, str] = Field(default_factory=_from_env(TOOL_ALIASES_ENV))


class CompatLoader(FolderLoader):
    """A folder loader for another tool's format: translate, then validate as agentframe."""

    #: Keys the format spells differently: theirs -> agentframe's.
    renamed: ClassVar[dict[str, str]] = {}
    #: Where the format keeps skills (`<name>/SKILL.md`), relative to the project folder
    #: holding the definition and to the home folder.
    skill_folders: ClassVar[tuple[str, ...]] = ()

    def __init__(self, options: CompatOptions | None = None) -> None:
        self.options = options or CompatOptions()

    def read(self, path: Path) -> tuple[Frontmatter, list[str]]:
        """The file's frontmatter and what reading it had to forgive (strict: nothing)."""
        return read_frontmatter(path), []

    def load_file(self, path: Path, level: str) -> AgentDefinition:
        fm, notes = self.read(path)
        self._restricted: dict[str, list[str]] = {"tools": [], "disallowedTools": [], "bare": []}

        def note(key: str, message: str) -> None:
            notes.append(f"{path}:{fm.line_of(key) or 1}: {key}: {message}")

        definition = definition_from_frontmatter(
            self.translate(fm, note),
            source=level,
            warnings=notes,
            skill_folders=self._skill_folders(path),
        )
        restricted = self._restricted
        allowed = [
            e for e in restricted["tools"] if e.split("(")[0].strip() not in restricted["bare"]
        ]
        rules = agent_rules_of(definition.name, allowed, restricted["disallowedTools"], path)
        record_agent_rules(path, rules)
        return definition

    def translate(self, fm: Frontmatter, note: Note) -> Frontmatter:
        data = dict(fm.data)
        lines = dict(fm.lines)
        for theirs, ours in self.renamed.items():
            if theirs in data and ours not in data:
                data[ours] = data.pop(theirs)
                for key, line in fm.lines.items():
                    if key == theirs or key.startswith(f"{theirs}."):
                        lines[ours + key[len(theirs) :]] = line
        if "tools" in data:
            data["tools"] = self._tools(data["tools"], "tools", allow=True, note=note)
        if "disallowedTools" in data:
            data["disallowedTools"] = self._tools(
                data["disallowedTools"], "disallowedTools", allow=False, note=note
            )
        if isinstance(data.get("model"), str):
            data["model"] = map_model(data["model"], self.options, note)
        if "skills" in data and fm.file is not None:
            data["skills"] = self._skills(data["skills"], fm.file)
        self.translate_format(data, note)
        return replace(fm, data=data, lines=lines)

    def translate_format(self, data: dict[Any, Any], note: Note) -> None:
        """What only this format needs (in place)."""

    def _skill_folders(self, path: Path) -> list[Path]:
        """This format's skills folders for the definition at `path`: in the project holding
        it, then in the home folder."""
        bases = [Path.home()]
        if self.project_folder:
            depth = len(Path(self.project_folder).parts)
            if len(path.parents) > depth:
                bases.insert(0, path.parents[depth])  # the folder holding `.claude/agents`
        return [base / folder for base in bases for folder in self.skill_folders]

    def _skills(self, value: Any, path: Path) -> Any:
        """Skill names found in this format's own skills folders become paths; the others
        are left for agentframe's skill lookup."""
        names = value.split(",") if isinstance(value, str) else value
        if not isinstance(names, list) or not self.skill_folders:
            return value
        folders = self._skill_folders(path)
        resolved: list[Any] = []
        for name in names:
            found = None
            if isinstance(name, str) and name.strip() and "/" not in name:
                candidates = (folder / name.strip() / "SKILL.md" for folder in folders)
                found = next((c for c in candidates if c.is_file()), None)
            resolved.append(
                str(found) if found else name.strip() if isinstance(name, str) else name
            )
        return resolved

    def _tools(self, value: Any, key: str, *, allow: bool, note: Note) -> Any:
        if isinstance(value, str):
            entries: list[Any] = split_outside_parentheses(value)
        elif isinstance(value, list):
            entries = list(value)
        else:
            return value  # the wrong type: validation reports it
        result: list[Any] = []
        for entry in entries:
            if not isinstance(entry, str):
                result.append(entry)
                continue
            entry = entry.strip()
            restricted = _RESTRICTED.match(entry)
            if restricted and self._enforceable(restricted.group(1), entry):
                self._restricted[key].append(entry)
                if allow and restricted.group(1) not in result:
                    result.append(restricted.group(1))
                continue
            if restricted:
                tool = restricted.group(1)
                if allow:
                    note(
                        key,
                        f"{entry!r}: agentframe cannot limit a tool's arguments; left out, "
                        f"so {tool!r} is not allowed",
                    )
                    continue
                note(
                    key,
                    f"{entry!r}: agentframe cannot limit a tool's arguments; "
                    f"the whole tool {tool!r} is denied",
                )
                entry = tool
            if entry:
                if allow and not restricted and hasattr(self, "_restricted"):
                    self._restricted["bare"].append(entry)
                if self.options.tool_aliases.get(entry, entry) not in result:
                    result.append(self.options.tool_aliases.get(entry, entry))
        return result

    def _enforceable(self, tool: str, entry: str) -> bool:
        """Can the tool gate enforce `entry` (`Bash(git:*)`)? Not for a renamed tool, nor
        for a specifier Claude Code's rules do not define (`Agent(worker)`)."""
        if not hasattr(self, "_restricted") or self.options.tool_aliases.get(tool, tool) != tool:
            return False
        try:
            rule = parse_rule(entry, "", Path())
        except RuleError:
            return False
        return rule.tool in ENFORCED_TOOLS or rule.tool.startswith("mcp__")


def map_model(model: str, options: CompatOptions, note: Note) -> str | None:
    """A model as a file names it -> the adapter model: an alias through `model_aliases`;
    an unmapped Claude Code alias is the stack's model (None), with a warning."""
    name = model.strip()
    if name in options.model_aliases:
        return options.model_aliases[name]
    if name.lower() in CLAUDE_MODEL_ALIASES:
        note(
            "model",
            f"model alias {name!r} names no model of this stack; the stack's model is used "
            f'(map it with ${MODEL_ALIASES_ENV}="{name}=<model>")',
        )
        return None
    return name


def split_outside_parentheses(text: str) -> list[str]:
    """`Read, Agent(a, b), Bash` -> ["Read", "Agent(a, b)", "Bash"]."""
    parts, depth, current = [], 0, ""
    for char in text:
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
            continue
        depth += (char == "(") - (char == ")")
        current += char
    parts.append(current)
    return [part.strip() for part in parts if part.strip()]


class ClaudeLoader(CompatLoader):
    """Claude Code subagents: `.claude/agents/*.md` and `~/.claude/agents/*.md`.

    `tools` is a comma-separated allowlist, `model` an alias or `inherit`, `permissionMode`
    may be `bypassPermissions` (-> `dontAsk`: agentframe does not ask either way).
    """

    priority = 50
    project_folder = ".claude/agents"
    user_folder = ".claude/agents"
    skill_folders = (".claude/skills",)

    def read(self, path: Path) -> tuple[Frontmatter, list[str]]:
        """Claude Code's leniency: a value strict YAML rejects is read as text, warned."""
        return read_lenient(path)

    def scan(self, cwd: Path) -> AgentScan:
        """The project's and the user's agents, then the installed plugins' (`agents/`, or
        the files plugin.json names), as user-level definitions."""
        scan = super().scan(cwd)
        for plugin in installed_plugins():
            try:
                files = plugin_parts(plugin).agents
            except PluginError as err:
                scan.errors.append(AgentDefinitionError(err.reason, file=err.file))
                continue
            for path in files:
                try:
                    scan.definitions.append(self.load_file(path, "user"))
                except AgentDefinitionError as err:
                    scan.errors.append(err)
        return scan

    def _skill_folders(self, path: Path) -> list[Path]:
        """Also every installed plugin's `skills/`: a plugin's agents name its skills."""
        folders = super()._skill_folders(path)
        for plugin in installed_plugins():
            with contextlib.suppress(PluginError):
                folders.extend(plugin_parts(plugin).skills)
        return folders

    def translate_format(self, data: dict[Any, Any], note: Note) -> None:
        if data.get("permissionMode") == "bypassPermissions":
            data["permissionMode"] = "dontAsk"
            note("permissionMode", "'bypassPermissions' is read as 'dontAsk'")


class PiLoader(CompatLoader):
    """pi subagents: `.pi/agents/*.md` (project) and `~/.pi/agent/agents/*.md` (user).

    `tools` is a comma-separated list of pi's tool names, `model` a model id (often
    `provider/model`), `skill` a comma-separated list of skills.
    """

    priority = 40
    project_folder = ".pi/agents"
    user_folder = ".pi/agent/agents"
    skill_folders = (".pi/skills", ".pi/agent/skills")
    renamed: ClassVar[dict[str, str]] = {"skill": "skills"}


class KigiLoader(CompatLoader):
    """kigi agents: `.kigi/agents/*.md` and `~/.kigi/agents/*.md`. No published spec was
    found: the common frontmatter subset (`name`, `description`, `tools`, `model`) and
    agentframe's own keys are read."""

    priority = 30
    project_folder = ".kigi/agents"
    user_folder = ".kigi/agents"
