"""A bounded walk of a folder tree, and glob patterns as Claude Code's tools read them.

`Glob`, `Grep` and `LS` share it: links to folders are not followed (a link loop or a link
out of the project costs nothing), version-control folders are skipped as ripgrep skips them
for Claude Code, and a walk stops after `max_entries` entries or at its deadline, saying so.

A walk leaves out what the stack hides (`agentframe_hidden_files`: agentframe-compat hides
what a `Read(…)` deny rule matches, e.g. `.env`): the gate saw only the folder the call
named, so each file found inside is tested here, and a hidden folder is not entered.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from agentframe_core import RunContext

__all__ = ["SKIPPED_FOLDERS", "Hidden", "Walk", "glob_regex", "hidden_files", "hidden_note"]

#: A test of a real absolute path: True for what a call must leave out.
Hidden = Callable[[Path], bool]

SKIPPED_FOLDERS = frozenset({".git", ".svn", ".hg", ".bzr"})


@dataclass(slots=True)
class Walk:
    """Files under `top` (and folders, with `folders=True`), as (path relative to `top`,
    entry), in a stable order: each folder's entries by name, then its subfolders' in turn
    (a tree is drawn by sorting the paths: `listing.list_tree`)."""

    top: Path
    max_entries: int
    deadline: float
    hidden: Hidden | None = None
    visited: int = 0
    #: Entries left out because `hidden` said so.
    left_out: int = 0
    #: Why the walk stopped early ("" when it saw everything).
    stopped: str = ""

    def entries(
        self, folders: bool = False, skip: Callable[[str, bool], bool] | None = None
    ) -> Iterator[tuple[str, os.DirEntry[str]]]:
        """`skip(relative path, is_dir)`: entries neither yielded nor entered."""
        stack: list[tuple[Path, str]] = [(self.top, "")]
        while stack:
            folder, prefix = stack.pop()
            try:
                with os.scandir(folder) as listing:
                    children = sorted(listing, key=lambda e: e.name)
            except OSError:
                continue  # unreadable: skipped, as ripgrep does
            below: list[tuple[Path, str]] = []
            for entry in children:
                self.visited += 1
                if self.visited > self.max_entries:
                    self.stopped = f"stopped after {self.max_entries} entries (max_entries)"
                    return
                if self.visited % 256 == 0 and time.monotonic() > self.deadline:
                    self.stopped = "stopped at the time limit (search_timeout)"
                    return
                relative = f"{prefix}{entry.name}"
                try:
                    is_dir = entry.is_dir(follow_symlinks=False)
                except OSError:
                    continue
                if skip is not None and skip(relative, is_dir):
                    continue
                if self.hidden is not None and self.hidden(Path(entry.path)):
                    self.left_out += 1
                    continue
                if is_dir:
                    if entry.name in SKIPPED_FOLDERS:
                        continue
                    if folders:
                        yield relative, entry
                    below.append((Path(entry.path), f"{relative}/"))
                else:
                    yield relative, entry
            stack.extend(reversed(below))


def hidden_files(ctx: RunContext, name: str, arguments: dict[str, Any]) -> Hidden | None:
    """What the stack's plugins hide from this call of tool `name`, as one test; None when
    nothing is hidden (no plugin answers, or the context has no hooks: a bare dispatcher)."""
    hooks = ctx.stack.hooks
    caller = getattr(hooks, "agentframe_hidden_files", None) if hooks is not None else None
    if caller is None:
        return None
    tests = [t for t in caller(ctx=ctx, name=name, arguments=arguments) if callable(t)]
    if not tests:
        return None
    return lambda path: any(test(path) for test in tests)


def hidden_note(walk: Walk) -> str:
    """The note a result ends with when the walk left entries out ("" when it did not)."""
    if not walk.left_out:
        return ""
    entries = "entry" if walk.left_out == 1 else "entries"
    return f"{walk.left_out} {entries} hidden by a permission rule left out"


@lru_cache(maxsize=256)
def glob_regex(pattern: str, anywhere: bool = False) -> re.Pattern[str]:
    """A glob pattern as a regex over `/`-separated relative paths: `*` and `?` within one
    path segment, `**` across segments, `[abc]` classes, `{a,b}` alternatives. `anywhere`: a
    pattern without `/` matches a file name at any depth, as ripgrep's `--glob` (Grep's
    filter) does; Glob's `*.json` means the top folder only."""
    if anywhere and "/" not in pattern.strip("/"):
        pattern = f"**/{pattern}"
    return re.compile(f"(?s:{_translate(pattern.lstrip('/'))})\\Z")


def _translate(pattern: str) -> str:
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            end = pattern.find("]", i + 2)
            if end < 0:
                out.append(re.escape(c))
                i += 1
                continue
            body = pattern[i + 1 : end].replace("\\", "\\\\")
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append(f"[{body}]")
            i = end + 1
        elif c == "{":
            end, options = _alternatives(pattern, i)
            if end < 0:
                out.append(re.escape(c))
                i += 1
                continue
            out.append("(?:" + "|".join(_translate(o) for o in options) + ")")
            i = end + 1
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)


def _alternatives(pattern: str, start: int) -> tuple[int, list[str]]:
    """The index of the `}` closing the `{` at `start`, and the comma-separated options."""
    depth, options, begin = 0, [], start + 1
    for i in range(start, len(pattern)):
        c = pattern[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                options.append(pattern[begin:i])
                return i, options
        elif c == "," and depth == 1:
            options.append(pattern[begin:i])
            begin = i + 1
    return -1, []
