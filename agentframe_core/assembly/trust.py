"""Workspace trust: code a project folder supplies runs only once its person trusts the folder.

A cloned repository can hold Claude Code hooks, `.mcp.json` servers and slash commands with
`` !`cmd` `` lines: each is a program that would run as the user. Every path that would run
such a program asks `require_trust(folder, runs)` first, the one check: a trusted folder
(itself or a parent trusted, or `$AGENTFRAME_TRUST_ALL=1` for CI and containers) runs them; an
inspection command (`doctor`, `... list`, `config show`) never runs them and never asks; at a
terminal the person is asked once, with what would run listed; anywhere else the check
refuses with one line naming `agentframe trust PATH`.

The trusted folders are kept per user in `trusted-folders.json` under agentframe's data folder
(0600, written whole through a temporary file and a rename, under a lock: two processes
trusting at once lose neither), their links resolved.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import shlex
import stat
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from ..contract.errors import AgentframeError
from ..engine.definitions.folders import project_dirs
from ..support.files import FileReadError, atomic_write, read_text_file
from .plugins import data_dir

__all__ = [
    "TRUST_ALL_ENV",
    "UntrustedFolderError",
    "config_in_project",
    "confirm",
    "inspect_only",
    "inspecting",
    "is_trusted",
    "require_trust",
    "revoke_folder",
    "trust_file",
    "trust_folder",
    "trusted_folders",
]

log = logging.getLogger("agentframe.trust")

#: Set to 1 to trust every folder (CI, containers: no person to ask, the checkout is known).
TRUST_ALL_ENV = "AGENTFRAME_TRUST_ALL"
#: Bytes of the trust file, and folders it may hold.
MAX_TRUST_BYTES = 1024 * 1024
MAX_FOLDERS = 5_000
#: Lines of what would run shown in a question, characters of each.
_SHOWN, _WIDTH = 20, 160

_inspecting = False
#: Folders the person declined in this process: asked once, never again.
_declined: set[Path] = set()


class UntrustedFolderError(AgentframeError):
    """Code of a folder nobody trusted would run; the message says how to trust it."""


def trust_file() -> Path:
    return data_dir() / "trusted-folders.json"


def trust_all() -> bool:
    return os.environ.get(TRUST_ALL_ENV, "").strip().lower() in ("1", "true", "yes", "on")


def trusted_folders() -> list[Path]:
    """The trusted folders, as recorded. A trust file that is not the user's alone, or that
    cannot be read, trusts nothing (logged): a folder is never trusted by mistake."""
    path = trust_file()
    try:
        info = path.stat()
    except FileNotFoundError:
        return []
    except OSError as err:
        log.warning("%s: cannot be read (%s); no folder is trusted", path, err.strerror)
        return []
    if info.st_uid != os.geteuid() or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        log.warning("%s: not writable by its user alone; no folder is trusted", path)
        return []
    try:
        data = json.loads(read_text_file(path, MAX_TRUST_BYTES, "trust file"))
    except (FileReadError, ValueError) as err:
        log.warning("%s: unusable (%s); no folder is trusted", path, err)
        return []
    folders = data.get("folders") if isinstance(data, dict) else None
    if not isinstance(folders, list):
        log.warning("%s: no `folders` list; no folder is trusted", path)
        return []
    return [Path(f) for f in folders if isinstance(f, str) and Path(f).is_absolute()]


def is_trusted(folder: Path) -> bool:
    """Is `folder` (links resolved) trusted: itself or a parent recorded, or all trusted?"""
    if trust_all():
        return True
    real = folder.resolve()
    return any(real.is_relative_to(trusted) for trusted in trusted_folders())


def trust_folder(folder: Path) -> Path:
    """Record `folder` (links resolved) as trusted; returns it."""
    real = folder.expanduser().resolve()
    if not real.is_dir():
        raise AgentframeError(f"{folder}: not a folder")
    with _locked() as folders:
        if real not in folders:
            if len(folders) >= MAX_FOLDERS:
                raise AgentframeError(
                    f"{trust_file()}: {MAX_FOLDERS} folders trusted already; revoke some first"
                )
            folders.append(real)
    return real


def revoke_folder(folder: Path) -> bool:
    """Forget `folder` (links resolved); False when it was not recorded."""
    real = folder.expanduser().resolve()
    with _locked() as folders:
        if real not in folders:
            return False
        folders.remove(real)
    return True


@contextlib.contextmanager
def _locked() -> Iterator[list[Path]]:
    """The recorded folders, to change in place, then written back whole, 0600, under a lock."""
    path = trust_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = os.open(path.with_suffix(".lock"), os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        folders = trusted_folders()
        yield folders
        text = json.dumps({"folders": [str(f) for f in folders]}, indent=1) + "\n"
        atomic_write(path, text, mode=0o600)
    finally:
        os.close(lock)


def inspect_only() -> None:
    """From now on in this process, untrusted code is left out, never asked about and never
    refused: the commands that only show what there is (`doctor`, `mcp list`) call this."""
    global _inspecting
    _inspecting = True


def inspecting() -> bool:
    return _inspecting


def config_in_project(config_file: Path | None, cwd: Path) -> bool:
    """Is the config in force the working folder's own (none, or a file in the working folder
    or a parent up to its repository root)? A config from elsewhere (`--config`,
    `$AGENTFRAME_CONFIG`) does not pull in the working folder's project files unasked."""
    if config_file is None:
        return True
    folder = config_file.expanduser().resolve().parent
    return any(folder == d.resolve() for d in project_dirs(cwd))


def require_trust(folder: Path, runs: Sequence[str]) -> bool:
    """May the code of `folder` listed in `runs` (one line each) run? True when the folder
    is trusted (or nothing would run); False while inspecting (leave it out, say so); at a
    terminal the person is asked once (yes trusts the folder); else `UntrustedFolderError`."""
    if not runs or is_trusted(folder):
        return True
    if _inspecting:
        return False
    real = folder.resolve()
    if real not in _declined:
        answer = confirm(
            f"{real} is not a trusted folder. Trusting it lets its files run:",
            runs,
            "Trust this folder (recorded; `agentframe trust --revoke` forgets it)?",
        )
        if answer:
            trust_folder(real)
            return True
        if answer is not None:
            _declined.add(real)
    shown = "; ".join(line[:_WIDTH] for line in runs[:2])
    more = f" and {len(runs) - 2} more" if len(runs) > 2 else ""
    raise UntrustedFolderError(
        f"{real} is not a trusted folder; it would run {shown}{more} "
        f"(`agentframe trust {shlex.quote(str(real))}` trusts it, or {TRUST_ALL_ENV}=1)"
    )


def confirm(title: str, lines: Sequence[str], question: str) -> bool | None:
    """Ask the person at the terminal a yes/no question about what would run (`lines`, the
    first 20 shown); None when there is no terminal to ask or a command only inspects."""
    if _inspecting or not (sys.stdin.isatty() and sys.stderr.isatty()):
        return None
    out = sys.stderr
    out.write(f"\n{title}\n")
    for line in lines[:_SHOWN]:
        out.write(f"  - {line[:_WIDTH]}\n")
    if len(lines) > _SHOWN:
        out.write(f"  ... and {len(lines) - _SHOWN} more\n")
    out.write(f"{question} [y/N] ")
    out.flush()
    return sys.stdin.readline().strip().lower() in ("y", "yes")
