"""`Write`, `Edit` and `MultiEdit`: whole files replaced atomically (the kernel's
`atomic_write`), so a reader, or a run killed mid-write, sees the old content or the new.

Edits are exact string replacements, refused as Claude Code refuses them: an `old_string`
that is missing, or found more than once without `replace_all`, changes nothing. A
`MultiEdit` applies its edits one after the other in memory and writes once: any edit that
fails leaves the file as it was. The file's permission bits are kept.

No file grows past `max_file_bytes`: the size an edit would give is computed from the
match count before the new text is built (a `replace_all` of one byte by a megabyte in a
1 MB file would otherwise build a terabyte in memory), and a `Write` larger than it is
refused too.

The loop runs the calls of one reply at once: two edits of one file would each read the old
content and the second write would undo the first. Changes to one file are serialised (a
lock per resolved path, in this process), so both apply.
"""

from __future__ import annotations

import os
import stat
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentframe_core import FileReadError, atomic_write, read_text_file

from .project import ToolError
from .reading import numbered

__all__ = ["Replacement", "edit_file", "write_file"]

#: Lines of context shown around an edit in its result.
_CONTEXT = 4

_locks: dict[Path, threading.Lock] = {}
_locks_guard = threading.Lock()


def _lock(path: Path) -> threading.Lock:
    """The lock of one file (kept: a few bytes per file a session changed)."""
    with _locks_guard:
        return _locks.setdefault(path, threading.Lock())


@dataclass(frozen=True, slots=True)
class Replacement:
    old_string: str
    new_string: str
    replace_all: bool = False

    @classmethod
    def of(cls, arguments: dict[str, Any]) -> Replacement:
        return cls(
            arguments["old_string"], arguments["new_string"], bool(arguments.get("replace_all"))
        )


def write_file(path: Path, content: str, max_bytes: int) -> str:
    size = len(content.encode("utf-8", errors="surrogatepass"))
    if size > max_bytes:
        raise ToolError(_too_large(path, size, max_bytes))
    with _lock(path):
        return _write_file(path, content)


def _write_file(path: Path, content: str) -> str:
    existed = path.exists()
    if existed and not path.is_file():
        raise ToolError(f"{path} exists and is not a regular file; refused")
    _write(path, content)
    if existed:
        return f"The file {path} has been updated successfully."
    return f"File created successfully at: {path}"


def edit_file(path: Path, edits: list[Replacement], max_bytes: int) -> str:
    """Apply `edits` in order and write once; the result text of Edit (one edit) or
    MultiEdit (several)."""
    with _lock(path):
        return _edit_file(path, edits, max_bytes)


def _edit_file(path: Path, edits: list[Replacement], max_bytes: int) -> str:
    if not path.exists():
        if edits[0].old_string == "":  # Claude Code: an empty old_string creates the file
            content = _apply(edits[0].new_string, edits[1:], 2, max_bytes, path)
            _write(path, content)
            return f"File created successfully at: {path}"
        raise ToolError(f"File does not exist: {path}")
    original = _read(path, max_bytes)
    content = _apply(original, edits, 1, max_bytes, path)
    _write(path, content)
    if len(edits) > 1:
        done = "\n".join(
            f"{n}. Replaced {_brief(e.old_string)} with {_brief(e.new_string)}"
            for n, e in enumerate(edits, 1)
        )
        return f"Applied {len(edits)} edits to {path}:\n{done}"
    edit = edits[0]
    if edit.replace_all:
        return (
            f"The file {path} has been updated. All occurrences of {edit.old_string!r} were "
            f"successfully replaced with {edit.new_string!r}."
        )
    return (
        f"The file {path} has been updated. Here's the result of running `cat -n` on a "
        f"snippet of the edited file:\n{_snippet(original, content, edit)}"
    )


def _apply(content: str, edits: list[Replacement], first: int, max_bytes: int, path: Path) -> str:
    """`content` with `edits` applied in order; a ToolError for the first that cannot be
    applied, or whose result would pass `max_bytes` (checked before it is built)."""
    size = _size(content)
    if size > max_bytes:
        raise ToolError(_too_large(path, size, max_bytes))
    for n, edit in enumerate(edits, first):
        where = f" (edit {n})" if len(edits) > 1 or first > 1 else ""
        if edit.old_string == edit.new_string:
            raise ToolError(
                f"No changes to make: old_string and new_string are exactly the same.{where}"
            )
        if edit.old_string == "":
            raise ToolError(f"Cannot create new file - file already exists.{where}")
        count = content.count(edit.old_string)
        if count == 0:
            raise ToolError(
                f"String to replace not found in file.{where}\nString: {edit.old_string}"
            )
        if count > 1 and not edit.replace_all:
            raise ToolError(
                f"Found {count} matches of the string to replace, but replace_all is false. "
                "To replace all occurrences, set replace_all to true. To replace only one "
                f"occurrence, please provide more context to uniquely identify the instance."
                f"{where}\nString: {edit.old_string}"
            )
        replaced = count if edit.replace_all else 1
        size += replaced * (_size(edit.new_string) - _size(edit.old_string))
        if size > max_bytes:
            raise ToolError(f"{_too_large(path, size, max_bytes)}{where}")
        content = content.replace(edit.old_string, edit.new_string, replaced)
    return content


def _size(text: str) -> int:
    """Bytes of `text` in UTF-8 (a lone surrogate counted as the 3 bytes it is written as)."""
    return len(text.encode("utf-8", errors="surrogatepass"))


def _too_large(path: Path, size: int, max_bytes: int) -> str:
    return (
        f"{path}: the result would be {size} bytes, over the {max_bytes} bytes a file may "
        "have (max_file_bytes); nothing was changed"
    )


def _read(path: Path, max_bytes: int) -> str:
    try:
        return read_text_file(path, max_bytes, "file to edit")
    except FileReadError as err:
        raise ToolError(f"{path}: {err.reason}") from None


def _write(path: Path, content: str) -> None:
    try:
        mode = stat.S_IMODE(path.stat().st_mode) if path.exists() else None
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, content)
        if mode is not None:
            os.chmod(path, mode)
    except OSError as err:
        raise ToolError(f"{path}: cannot write: {err.strerror or err}") from None


def _snippet(original: str, content: str, edit: Replacement) -> str:
    """The edited lines with a few lines around them, numbered as Read shows them."""
    start = original.find(edit.old_string)
    first = original.count("\n", 0, start)
    lines = content.removesuffix("\n").split("\n")
    last = first + edit.new_string.count("\n")
    begin = max(0, first - _CONTEXT)
    return numbered(lines[begin : last + _CONTEXT + 1], begin + 1)


def _brief(text: str, limit: int = 60) -> str:
    shown = text if len(text) <= limit else f"{text[:limit]}…"
    return repr(shown)
