"""`Glob` (files matching a pattern, newest first) and `LS` (a folder as a tree); both leave
out what the stack hides (`walking.hidden_files`), a file link also by what it leads to."""

from __future__ import annotations

import time
from pathlib import Path, PurePosixPath

from agentframe_core import PathEscapeError, confined

from .project import Project, ToolError
from .walking import Hidden, Walk, glob_regex, hidden_note

__all__ = ["glob_files", "list_tree"]

#: Claude Code returns at most this many Glob results, and LS entries.
GLOB_RESULTS = 100
LS_ENTRIES = 1000
#: Names LS leaves out, as Claude Code's does: hidden entries and Python's caches.
_LS_HIDDEN = ("__pycache__",)


def relative_pattern(pattern: str, base: Path) -> str:
    """A pattern relative to `base`; an absolute one must lie inside it, and none may climb
    out with `..`."""
    if not pattern.strip():
        raise ToolError("pattern: empty")
    if pattern.startswith("/"):
        inside = PurePosixPath(pattern)
        if not inside.is_relative_to(base.as_posix()):
            raise ToolError(f"{pattern}: the pattern must stay inside {base}; refused")
        pattern = inside.relative_to(base.as_posix()).as_posix()
    if ".." in PurePosixPath(pattern).parts:
        raise ToolError(f"{pattern}: `..` would leave the search folder; refused")
    return pattern


def glob_files(
    project: Project,
    pattern: str,
    path: str | None,
    max_entries: int,
    timeout: float,
    hidden: Hidden | None = None,
) -> str:
    base = _folder(project, path, hidden)
    matcher = glob_regex(relative_pattern(pattern, base))
    walk = Walk(base, max_entries, time.monotonic() + timeout, hidden)
    found: list[tuple[float, str]] = []
    for relative, entry in walk.entries():
        if not matcher.match(relative):
            continue
        try:
            real = confined(entry.path, [project.root])
            if hidden is not None and hidden(real):
                walk.left_out += 1
                continue
            found.append((real.stat().st_mtime, project.relative(Path(entry.path))))
        except (PathEscapeError, OSError):
            continue  # a link out of the project, or gone meanwhile: not offered
    found.sort(key=lambda item: (-item[0], item[1]))
    lines = [name for _, name in found[:GLOB_RESULTS]]
    if not lines:
        lines = ["No files found"]
    if len(found) > GLOB_RESULTS:
        lines.append("(Results are truncated. Consider using a more specific path or pattern.)")
    if walk.stopped:
        lines.append(f"(The search {walk.stopped}; narrow the path or pattern.)")
    if walk.left_out:
        lines.append(f"({hidden_note(walk)}.)")
    return "\n".join(lines)


def list_tree(
    project: Project,
    path: str | None,
    ignore: list[str],
    max_entries: int,
    timeout: float,
    hidden: Hidden | None = None,
) -> str:
    base = _folder(project, path, hidden)
    ignored = [glob_regex(pattern, anywhere=True) for pattern in ignore]

    def skip(relative: str, is_dir: bool) -> bool:
        name = relative.rpartition("/")[2]
        unlisted = name.startswith(".") or name in _LS_HIDDEN
        return unlisted or any(rule.match(relative) for rule in ignored)

    walk = Walk(base, max_entries, time.monotonic() + timeout, hidden)
    lines = [f"- {base}/"]
    rows: list[tuple[list[str], str]] = []
    for relative, entry in walk.entries(folders=True, skip=skip):
        if len(rows) == LS_ENTRIES:
            lines.insert(
                0,
                f"There are more than {LS_ENTRIES} files in the directory. Use the LS tool "
                "(passing a specific path), Glob, Grep and other tools to explore nested "
                f"directories. The first {LS_ENTRIES} files and directories are included "
                "below:\n",
            )
            break
        slash = "/" if entry.is_dir(follow_symlinks=False) else ""
        rows.append((relative.split("/"), f"{entry.name}{slash}"))
    # The walk lists a folder's entries before it enters its subfolders: each entry goes
    # under its own folder, in name order, for the tree.
    for parts, shown in sorted(rows):
        lines.append(f"{'  ' * len(parts)}- {shown}")
    if walk.stopped:
        lines.append(f"(The listing {walk.stopped}.)")
    if walk.left_out:
        lines.append(f"({hidden_note(walk)}.)")
    return "\n".join(lines)


def _folder(project: Project, path: str | None, hidden: Hidden | None) -> Path:
    """The folder to walk: inside the project, and not one the stack hides."""
    folder = project.folder(path)
    if hidden is not None and hidden(folder):
        raise ToolError(f"{path}: a permission rule denies reading it; refused")
    return folder
