"""The kernel's agent loader (`agent_loaders: agentframe`): agentframe's own definition
files, in the folders every `FolderLoader` searches, the config's `agents:` folders and the
built-in definitions."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..engine.definitions.loader import BUILTIN_FOLDER, AgentFolder, FolderLoader

__all__ = ["AgentframeLoader"]


class AgentframeLoader(FolderLoader):
    """agentframe's own format: `.agentframe/agents/*.md` in project folders, then
    `~/.agentframe/agents`, then the config's `agents:` folders, then the built-ins."""

    priority = 100
    project_folder = ".agentframe/agents"
    user_folder = ".agentframe/agents"

    def __init__(self, folders: Sequence[Path] = ()) -> None:
        self.config_folders = [Path(folder).expanduser() for folder in folders]

    def folders(self, cwd: Path) -> list[AgentFolder]:
        return [
            *super().folders(cwd),
            *(AgentFolder(cwd / folder, "config") for folder in self.config_folders),
            AgentFolder(BUILTIN_FOLDER, "builtin"),
        ]

    def owns(self, path: Path) -> bool:
        parent = path.absolute().parent
        return super().owns(path) or any(parent == f.absolute() for f in self.config_folders)
