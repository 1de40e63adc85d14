"""Frontmatter as Claude Code reads it: strict YAML first, then, for a file strict YAML
rejects, line by line, each key's value read as text where YAML cannot read it.

Claude Code loads files strict YAML rejects, and Anthropic ships such files:
`description: Use when: the tests fail` (a second `: ` in a plain value),
`argument-hint: [pr] [priority]` (a flow sequence followed by more text), and descriptions
whose `<example>` dialogues run over many unindented lines (`Context: ...`, `user: "..."`).
Here such a file loads too. The frontmatter is cut into keys at the lines that start one (a
key Claude Code or agentframe defines always does; another key only outside an
`<example>`-like block and in lowercase: `Context:`, or `user:` inside a dialogue, do not);
each key is read as YAML when it can be, else as the text of its lines. A warning names the
file, the line and the key, so the value can be fixed by quoting it.

The kernel's bounds stay: the file's size, and for each key the YAML reader's node, depth
and alias limits; a frontmatter of more than `MAX_KEYS` keys is refused, named.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from agentframe_core import (
    AgentDefinition,
    AgentDefinitionError,
    FileReadError,
    Frontmatter,
    read_text_file,
    split_frontmatter,
)

__all__ = ["CLAUDE_KEYS", "MAX_KEYS", "read_lenient", "split_lenient"]

#: Bytes of one command, agent or skill file (prose; a larger file is refused, named).
FILE_LIMIT = 1 << 20
#: Keys of one frontmatter read leniently (each is parsed on its own).
MAX_KEYS = 200
#: The keys of Claude Code's agent, command and skill files: a line starting with one of
#: these starts a key, even inside a multi-line text value.
CLAUDE_KEYS = frozenset(
    {
        *("name", "description", "tools", "disallowedTools", "model", "color"),
        *("permissionMode", "skills", "hooks", "mcpServers", "memory", "maxTurns"),
        *("background", "effort", "isolation", "initialPrompt", "allowed-tools"),
        *("argument-hint", "disable-model-invocation", "user-invocable", "context"),
        *("agent", "version", "license", "metadata", "when_to_use", "compatibility"),
        *("paths", "shell"),
    }
)
_AGENTFRAME_KEYS = frozenset(
    info.alias or name for name, info in AgentDefinition.model_fields.items() if not info.exclude
)
_KEY_LINE = re.compile(r"^([A-Za-z_][\w.-]*):(?:[ \t]|$)")
_OPEN_TAG = re.compile(r"<[A-Za-z][\w-]*>")
_CLOSE_TAG = re.compile(r"</[A-Za-z][\w-]*>")
_BLOCK_INDICATOR = re.compile(r"^[|>][+-]?\d?$")


def read_lenient(path: Path, *, required: bool = True) -> tuple[Frontmatter, list[str]]:
    """Read and split `path`; the warnings say which keys were read as text. An
    unreadable or oversized file is an `AgentDefinitionError` naming it."""
    try:
        text = read_text_file(path, FILE_LIMIT)
    except FileReadError as err:
        raise AgentDefinitionError(f"cannot read: {err.reason}", file=path) from None
    return split_lenient(text, path, required=required)


def split_lenient(
    text: str, path: Path | None = None, *, required: bool = True
) -> tuple[Frontmatter, list[str]]:
    """`split_frontmatter`, or for a frontmatter strict YAML rejects, Claude Code's line by
    line reading; when that cannot read it either, the strict error is raised."""
    try:
        return split_frontmatter(text, path, required=required), []
    except AgentDefinitionError as err:
        strict = err
    lines = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    close = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
    if lines[0].strip() != "---" or close is None:
        raise strict
    entries = _entries(lines[1:close], path, strict)
    data: dict[Any, Any] = {}
    key_lines: dict[str, int] = {}
    notes: list[str] = []
    for entry in entries:
        if entry.key in data:
            notes.append(
                f"{path}:{entry.line}: {entry.key}: given twice (also line "
                f"{key_lines[entry.key]}); the last is used, as Claude Code does"
            )
        parsed = _as_yaml(entry, path)
        if parsed is None:
            data[entry.key], key_lines[entry.key] = entry.text(), entry.line
            span = f" (lines {entry.line}-{entry.last})" if entry.last > entry.line else ""
            notes.append(
                f"{path}:{entry.line}: {entry.key}: not valid YAML{span}; read as text, as "
                "Claude Code does (quote the value, or write it as a `|` block, to silence this)"
            )
            continue
        data.update(parsed.data)
        key_lines.update(parsed.lines)
    # The frontmatter's lines left blank: the body and its line as the strict reader finds them.
    blank = "\n".join(["---", *([""] * (close - 1)), *lines[close:]])
    return replace(split_frontmatter(blank, path), data=data, lines=key_lines), notes


@dataclass(slots=True)
class _Entry:
    """One key's lines: the key, its file line, the value on that line and the lines after."""

    key: str
    line: int
    value: str
    more: list[str] = field(default_factory=list)

    @property
    def last(self) -> int:
        """The file line of the value's last line that is not blank."""
        filled = [i for i, line in enumerate(self.more, 1) if line.strip()]
        return self.line + (filled[-1] if filled else 0)

    def source(self) -> str:
        return "\n".join([f"{self.key}: {self.value}", *self.more])

    def text(self) -> str:
        """The value as text: a broken `|` block's lines dedented, else every line kept."""
        value = self.value.strip()
        rest = textwrap.dedent("\n".join(self.more))
        if _BLOCK_INDICATOR.match(value):
            return rest.strip()
        return "\n".join([value, rest]).strip() if rest.strip() else value


def _entries(lines: list[str], path: Path | None, strict: AgentDefinitionError) -> list[_Entry]:
    """The frontmatter's `lines` (the file's from line 2) cut into keys."""
    entries: list[_Entry] = []
    depth = 0
    for index, line in enumerate(lines):
        match = _KEY_LINE.match(line)
        if match and _starts_key(match.group(1), depth, not entries):
            if len(entries) >= MAX_KEYS:
                raise AgentDefinitionError(
                    f"more than {MAX_KEYS} keys: not a frontmatter this reader reads leniently",
                    file=path,
                    line=index + 2,
                )
            entries.append(_Entry(match.group(1), index + 2, line[match.end() :]))
        elif entries:
            entries[-1].more.append(line)
        elif line.strip() and not line.lstrip().startswith("#"):
            raise strict  # the first line is no key: nothing to read leniently
        depth = max(0, depth + len(_OPEN_TAG.findall(line)) - len(_CLOSE_TAG.findall(line)))
    return entries


def _starts_key(key: str, depth: int, first: bool) -> bool:
    """Does this `key:` line start a key, or continue the value before it?"""
    if first or key in CLAUDE_KEYS or key in _AGENTFRAME_KEYS:
        return True
    return depth == 0 and key[0].islower()


def _as_yaml(entry: _Entry, path: Path | None) -> Frontmatter | None:
    """The key read as YAML, its lines those of the file; None when YAML cannot read it as
    this one key."""
    try:
        fm = split_frontmatter(f"---\n{entry.source()}\n---\n", path)
    except AgentDefinitionError:
        return None
    if list(fm.data) != [entry.key]:
        return None
    shift = entry.line - 2
    return replace(fm, lines={key: line + shift for key, line in fm.lines.items()})
