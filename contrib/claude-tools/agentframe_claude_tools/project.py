"""The project folder, and every path a model names kept inside it.

Claude Code's tools take absolute paths; a small model often sends relative ones, so both are
accepted: a relative path is joined to the project folder. Either way the kernel's `confined`
resolves every symbolic link and refuses what lands outside (`../`, `/etc/passwd`, a link out).
"""

from __future__ import annotations

from pathlib import Path

from agentframe_core import PathEscapeError, confined

__all__ = ["Project", "ToolError"]


class ToolError(Exception):
    """A call that cannot be done: its message is the error result the model reads."""


class Project:
    def __init__(self, root: Path) -> None:
        self.root = root.expanduser().resolve()

    def path(self, value: str, what: str = "file_path") -> Path:
        """`value` as a real path inside the project, or a ToolError that says why not."""
        if not value or "\0" in value:
            raise ToolError(f"{what}: not a usable path: {value!r}")
        given = Path(value).expanduser()
        candidate = given if given.is_absolute() else self.root / given
        try:
            return confined(candidate, [self.root], what)
        except PathEscapeError as err:
            raise ToolError(f"{value}: {err.reason}; refused") from None
        except (OSError, RuntimeError) as err:  # a link loop, a name too long
            raise ToolError(f"{value}: cannot resolve the path: {err}") from None

    def folder(self, value: str | None, what: str = "path") -> Path:
        """An existing folder inside the project (the project itself when `value` is empty)."""
        folder = self.path(value, what) if value else self.root
        if not folder.is_dir():
            raise ToolError(f"{value}: not a directory")
        return folder

    def relative(self, path: Path) -> str:
        """A path as search results show it: relative to the project folder."""
        return path.relative_to(self.root).as_posix()
