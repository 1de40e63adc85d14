"""Where project files are looked for: the working directory up to the repository root."""

from __future__ import annotations

from pathlib import Path

__all__ = ["project_dirs", "repo_root"]


def repo_root(cwd: Path) -> Path | None:
    """The nearest folder at or above `cwd` holding `.git` (a folder, or a file in a worktree)."""
    here = cwd.absolute()
    for folder in (here, *here.parents):
        if (folder / ".git").exists():
            return folder
    return None


def project_dirs(cwd: Path) -> list[Path]:
    """`cwd` and its parents up to the repository root, nearest first. Outside a repository
    only `cwd` itself: walking up to `/` would pick up whatever lies around."""
    here = cwd.absolute()
    root = repo_root(here)
    if root is None:
        return [here]
    dirs = [here]
    for folder in here.parents:
        if not folder.is_relative_to(root):
            break
        dirs.append(folder)
    return dirs
