"""What every loader that reads definition files from folders shares (the kernel's own
loader, `parts/agentloader.py`, is one).

`FolderLoader` holds what every file-based loader shares: the folders searched by level
(project folders from the working directory up to the repository root, nearest first; then
the user's folder under `~`), one file at a time so a broken file is reported and skipped
without hiding the others. A subclass names its folders and, for another tool's format,
translates a file in `load_file`.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path

from ...contract.definition import AgentDefinition
from ...contract.errors import AgentDefinitionError, AgentParseError
from ...contract.protocols import AgentScan
from .folders import project_dirs
from .parse import load_definition

__all__ = ["BUILTIN_FOLDER", "AgentFolder", "FolderLoader"]

log = logging.getLogger(__name__)

#: Built-in definitions shipped in this package.
BUILTIN_FOLDER = Path(__file__).parent


@dataclass(frozen=True, slots=True)
class AgentFolder:
    path: Path
    #: `project`, `user`, `config` or `builtin`: becomes each definition's `source`.
    level: str


class FolderLoader:
    """Definition files (`*.md`, sorted by file name) in folders searched by level."""

    #: Ranks this loader against others for definitions at the same level and distance.
    priority: int = 0
    #: Folder under each project folder holding definitions (None: no project level).
    project_folder: str | None = None
    #: Folder under the home folder (None: no user level).
    user_folder: str | None = None

    def folders(self, cwd: Path) -> list[AgentFolder]:
        """The folders to read, highest priority first. The home folder is read at call
        time, so `$HOME` set after construction is honoured."""
        found = []
        if self.project_folder:
            found += [AgentFolder(d / self.project_folder, "project") for d in project_dirs(cwd)]
        if self.user_folder:
            found.append(AgentFolder(Path.home() / self.user_folder, "user"))
        return found

    def load_file(self, path: Path, level: str) -> AgentDefinition:
        """One file to a definition, or a typed `AgentDefinitionError`."""
        return load_definition(path, source=level)

    def owns(self, path: Path) -> bool:
        """Is `path` in one of this loader's folders (by the folder's name)? `agents check`
        uses it to read a file in the format it is written in."""
        parent = path.absolute().parent
        suffixes = [s for s in (self.project_folder, self.user_folder) if s]
        return any(parent.parts[-len(Path(s).parts) :] == Path(s).parts for s in suffixes)

    def scan(self, cwd: Path) -> AgentScan:
        definitions: list[AgentDefinition] = []
        errors: list[AgentDefinitionError] = []
        seen: set[Path] = set()
        for folder in self.folders(cwd):
            real = folder.path.resolve()
            if real in seen or not folder.path.is_dir():
                continue  # e.g. the project folder is the home folder
            seen.add(real)
            try:
                files = self._definition_files(folder.path, errors)
            except OSError as err:
                errors.append(AgentParseError(f"cannot list: {err}", file=folder.path))
                continue
            for path in files:
                try:
                    definitions.append(self.load_file(path, folder.level))
                except AgentDefinitionError as err:
                    errors.append(err)
                except Exception as err:  # a bug in a subclass must not hide the other files
                    log.debug("loading %s failed", path, exc_info=True)
                    errors.append(AgentParseError(f"{type(err).__name__}: {err}", file=path))
        return AgentScan(definitions, errors)

    @staticmethod
    def _definition_files(folder: Path, errors: list[AgentDefinitionError]) -> list[Path]:
        """The `*.md` files to load; a broken symbolic link is reported, not silently
        skipped (anything else that is not a regular file is refused when read)."""
        files = []
        for path in sorted(folder.glob("*.md")):
            if path.is_symlink() and not path.exists():
                target = os.readlink(path)
                errors.append(AgentParseError(f"broken symbolic link (to {target})", file=path))
            elif not path.is_dir():
                files.append(path)
        return files

    def discover(self, cwd: Path) -> list[AgentDefinition]:
        """The `AgentLoader` protocol: definitions only; skipped files are logged."""
        scan = self.scan(cwd)
        for error in scan.errors:
            log.warning("skipped agent definition: %s", error)
        return scan.definitions
