"""Project instruction files: which are read, and the files they import.

`INSTRUCTION_FILES` are looked for in every folder from the repository root down to the
working directory (AGENTS.md, and CLAUDE.md, which projects written for Claude Code keep
instead); `USER_INSTRUCTION_FILES` under the home folder come first. The names are data, not
code: a format is one more name here.

A file imports another by naming it as `@path` in its text (Claude Code's memory imports,
harmless elsewhere: an `@word` that names no file is prose): relative to the importing file,
or `~/...`; never inside a code span or a fenced block. Imports are followed up to
`IMPORT_DEPTH` hops, each file once (a cycle ends there), at most `MAX_FILES` files; an import
must lie, its links resolved, inside the project or the user's `~/.claude` folder: one that
leads elsewhere is skipped, logged with its file and line.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from ..support.files import (
    AGENT_FILE_LIMIT,
    FileReadError,
    PathEscapeError,
    confined,
    read_text_file,
)
from .definitions.folders import project_dirs

__all__ = ["INSTRUCTION_FILES", "USER_INSTRUCTION_FILES", "instruction_files"]

log = logging.getLogger(__name__)

INSTRUCTION_FILES = ("AGENTS.md", "CLAUDE.md")
#: Relative to the home folder.
USER_INSTRUCTION_FILES = (".claude/CLAUDE.md",)
IMPORT_DEPTH = 5
MAX_FILES = 50

_CODE = re.compile(r"```.*?(?:```|\Z)|`[^`\n]*`", re.DOTALL)
_IMPORT = re.compile(r"(?<![\w@`])@((?:~/|\.{1,2}/|/)?[\w.-][^\s`'\"<>()\[\]{},;]*)")


def instruction_files(cwd: Path) -> list[Path]:
    """The user's files, then the project's from the root down to `cwd`, each followed by
    the files it imports (depth first), each file once."""
    project = project_dirs(cwd)
    home = Path.home()
    roots = [project[-1], home / ".claude"]
    top = [home / name for name in USER_INSTRUCTION_FILES]
    top += [folder / name for folder in reversed(project) for name in INSTRUCTION_FILES]
    found: list[Path] = []
    seen: set[Path] = set()
    for path in top:
        if path.is_file():
            _visit(path, roots, 0, found, seen)
    return found


def _visit(path: Path, roots: list[Path], depth: int, found: list[Path], seen: set[Path]) -> None:
    real = path.resolve()
    if real in seen or len(found) >= MAX_FILES:
        return
    seen.add(real)
    found.append(path)
    if depth >= IMPORT_DEPTH:
        return
    try:
        text = read_text_file(path, AGENT_FILE_LIMIT, "project instructions")
    except FileReadError:
        return  # said when the prompt reads it
    prose = _CODE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    for match in _IMPORT.finditer(prose):
        reference = match.group(1).rstrip(".:!?")
        target = Path(reference).expanduser()
        target = target if target.is_absolute() else path.parent / target
        if not target.is_file():
            continue
        line = text.count("\n", 0, match.start()) + 1
        try:
            confined(target, roots, "imported file")
        except PathEscapeError as err:
            log.warning("%s:%d: import @%s skipped: %s", path, line, reference, err.reason)
            continue
        _visit(target, roots, depth + 1, found, seen)
