"""A project's `.mcp.json` servers, started only as Claude Code starts them: the folder trusted
(`agentframe_core.require_trust`, the one check), then each server approved by name in the
Claude Code settings files (the user's `~/.claude/settings.json`, the project's
`.claude/settings.json` and `.claude/settings.local.json`):

- `enableAllProjectMcpServers: true` approves every server of the project's `.mcp.json`;
- `enabledMcpjsonServers: [names]` approves those;
- `disabledMcpjsonServers: [names]` refuses those, whatever else says.

A server no file decides is asked about at a terminal, and the answer recorded as Claude Code
records it, in `.claude/settings.local.json`; elsewhere it is left out, named, with the
setting that approves it.
`$AGENTFRAME_TRUST_ALL=1` trusts the folder and approves every server (CI, containers).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentframe_core import (
    FileReadError,
    PathEscapeError,
    atomic_write,
    confined,
    confirm,
    read_text_file,
    require_trust,
    trust_all,
)

from .options import HttpServer, StdioServer, read_file

__all__ = ["Approvals", "approvals", "project_servers"]

log = logging.getLogger("agentframe.mcp")

#: Bytes of a settings file read for its approvals.
MAX_SETTINGS_BYTES = 1024 * 1024


@dataclass(slots=True)
class Approvals:
    """What the settings files say of a project's servers."""

    all: bool = False
    enabled: set[str] = field(default_factory=set)
    disabled: set[str] = field(default_factory=set)

    def approves(self, name: str) -> bool:
        return name not in self.disabled and (self.all or name in self.enabled)

    def decides(self, name: str) -> bool:
        return self.all or name in self.enabled or name in self.disabled


def approvals(project: Path, home: Path) -> Approvals:
    """The three keys, merged over the user's, the project's and its local settings files
    (the later file's `enableAllProjectMcpServers` wins; the lists add up). A file that
    cannot be read approves nothing (logged)."""
    found = Approvals()
    files = [
        (home / ".claude" / "settings.json", home / ".claude"),
        (project / ".claude" / "settings.json", project),
        (project / ".claude" / "settings.local.json", project),
    ]
    for path, folder in files:
        data = _settings(path, folder) or {}
        every = data.get("enableAllProjectMcpServers")
        if isinstance(every, bool):
            found.all = every
        found.enabled |= _names(data.get("enabledMcpjsonServers"))
        found.disabled |= _names(data.get("disabledMcpjsonServers"))
    return found


def _settings(path: Path, folder: Path) -> dict[str, Any] | None:
    """The file's JSON object ({} when there is no file); None when it cannot be used."""
    if not path.exists() and not path.is_symlink():
        return {}
    try:
        data = json.loads(read_text_file(confined(path, [folder]), MAX_SETTINGS_BYTES))
    except (FileReadError, PathEscapeError, ValueError) as err:
        log.warning("%s: not read for MCP server approvals: %s", path, err)
        return None
    return data if isinstance(data, dict) else None


def _names(value: Any) -> set[str]:
    return {v for v in value if isinstance(v, str)} if isinstance(value, list) else set()


def project_servers(
    path: Path, notes: list[str] | None = None
) -> dict[str, StdioServer | HttpServer]:
    """The servers of the project file `path` that may start; what is left out is said in
    `notes` (and logged): the whole file when its folder is not trusted and the command only
    looks (`doctor`, `mcp list`), each server no settings file approves."""
    servers = read_file(path)
    folder = path.parent
    runs = [f"MCP server {name}: {_command(server)} ({path})" for name, server in servers.items()]
    if not require_trust(folder, runs):
        _note(notes, f"untrusted: {len(servers)} MCP server(s) of {path} not started "
              f"(`agentframe trust {folder}`)")  # fmt: skip
        return {}
    if trust_all():
        return servers
    approved = approvals(folder, Path.home())
    undecided = [name for name in servers if not approved.decides(name)]
    if undecided:
        answer = confirm(
            f"{path} starts MCP servers no setting approves:",
            [f"{name}: {_command(servers[name])}" for name in undecided],
            "Start them (recorded in .claude/settings.local.json)?",
        )
        if answer is not None:
            (approved.enabled if answer else approved.disabled).update(undecided)
            record(folder, undecided, answer)
    left = sorted(name for name in servers if not approved.approves(name))
    if left:
        _note(
            notes,
            f"{path}: MCP server(s) {', '.join(left)} not approved, not started (name them in "
            "enabledMcpjsonServers, or set enableAllProjectMcpServers, in "
            ".claude/settings.local.json)",
        )
    return {name: server for name, server in servers.items() if name not in left}


def record(folder: Path, names: list[str], approved: bool) -> None:
    """The person's answer, in `.claude/settings.local.json` (`enabledMcpjsonServers` or
    `disabledMcpjsonServers`), as Claude Code keeps it; a file that cannot be read as a JSON
    object is left as it is (logged), and the answer holds for this process only."""
    path = folder / ".claude" / "settings.local.json"
    data = _settings(path, folder)
    if data is None:
        log.warning("%s: the answer about MCP servers is not recorded", path)
        return
    key = "enabledMcpjsonServers" if approved else "disabledMcpjsonServers"
    data[key] = sorted(_names(data.get(key)) | set(names))
    path.parent.mkdir(exist_ok=True)
    atomic_write(confined(path, [folder]), json.dumps(data, indent=2) + "\n")


def _command(server: StdioServer | HttpServer) -> str:
    if isinstance(server, StdioServer):
        return " ".join([server.command, *server.args])[:200]
    return server.url


def _note(notes: list[str] | None, text: str) -> None:
    """Into `notes` for a command that shows them, else logged."""
    if notes is None:
        log.warning("%s", text)
    else:
        notes.append(text)
