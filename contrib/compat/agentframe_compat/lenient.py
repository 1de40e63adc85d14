"""Frontmatter as Claude Code reads it: strict YAML first, then, for a file strict YAML
rejects, each top-level `key: value` line whose value alone is not valid YAML read as text.

Claude Code loads `description: Use when: the tests fail` and `argument-hint: [pr] [priority]`
(strict YAML rejects both: a second `: ` inside a plain value, a flow sequence followed by
more text). Such a file loads here too, with a warning naming the file, the line and the
key, so it can be fixed by quoting the value.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from agentframe_core import (
    AgentDefinitionError,
    FileReadError,
    Frontmatter,
    read_text_file,
    split_frontmatter,
)

__all__ = ["read_lenient", "split_lenient"]

#: A top-level `key: value` line (no indentation, a value on the same line).
_TOP_LEVEL = re.compile(r"^([A-Za-z_][\w.-]*):[ \t]+(\S.*?)\s*$")
#: Bytes of one command or agent file (prose; a larger file is refused, named).
FILE_LIMIT = 1 << 20


def read_lenient(path: Path, *, required: bool = True) -> tuple[Frontmatter, list[str]]:
    """Read and split `path`; the warnings say which lines were read as text. An
    unreadable or oversized file is an `AgentDefinitionError` naming it."""
    try:
        text = read_text_file(path, FILE_LIMIT)
    except FileReadError as err:
        raise AgentDefinitionError(f"cannot read: {err.reason}", file=path) from None
    return split_lenient(text, path, required=required)


def split_lenient(text: str, path: Path, *, required: bool = True) -> tuple[Frontmatter, list[str]]:
    """`split_frontmatter`, retried once with the offending plain values quoted."""
    try:
        return split_frontmatter(text, path, required=required), []
    except AgentDefinitionError as err:
        fixed, notes = _quoted(text, path)
        if not notes:
            raise
        try:
            return split_frontmatter(fixed, path, required=required), notes
        except AgentDefinitionError:
            raise err from None


def _quoted(text: str, path: Path) -> tuple[str, list[str]]:
    """`text` with each top-level value that is not valid YAML on its own quoted."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return text, []
    notes: list[str] = []
    for index in range(1, len(lines)):
        if lines[index].strip() == "---":
            break
        match = _TOP_LEVEL.match(lines[index].rstrip("\r"))
        if match is None or _valid(lines[index]):
            continue
        key, value = match.groups()
        lines[index] = f"{key}: {json.dumps(value, ensure_ascii=False)}"
        notes.append(
            f"{path}:{index + 1}: {key}: not valid YAML (a ': ' or '[...]' inside a plain "
            "value); read as text, as Claude Code does (quote the value to silence this)"
        )
    return "\n".join(lines), notes


def _valid(line: str) -> bool:
    try:
        split_frontmatter(f"---\n{line}\n---\n")
    except AgentDefinitionError:
        return False
    return True
