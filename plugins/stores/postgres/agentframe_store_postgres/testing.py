"""A throwaway PostgreSQL server for tests and benchmarks, and the pytest fixture over it.

`postgres_binaries()` finds initdb, pg_ctl and postgres on PATH or under
/usr/lib/postgresql/*/bin (newest version first), without naming a version. `TempServer`
initialises a cluster in a temporary folder and serves it on a free port of 127.0.0.1 (no
Unix socket), as an unprivileged user when we are root (PostgreSQL refuses to run as root).
A watchdog process stops the server and removes the folder if this process dies without
stopping it. The `postgres_dsn` fixture skips its tests when no binaries exist, and fails
them instead when AGENTFRAME_REQUIRE_POSTGRES=1 (CI).

    from agentframe_store_postgres.testing import postgres_dsn  # in a conftest.py
"""

from __future__ import annotations

import os
import pwd
import re
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

__all__ = ["REQUIRE_ENV", "TempServer", "postgres_binaries", "postgres_dsn", "unavailable"]

REQUIRE_ENV = "AGENTFRAME_REQUIRE_POSTGRES"
_TOOLS = ("initdb", "pg_ctl", "postgres")
#: Users the server may run as when we are root, first found wins.
_USERS = ("postgres", "nobody")

# Runs beside the test process: when its stdin closes (the parent died or stopped the server),
# stop the server at once and remove its folder.
_WATCHDOG = """
import shutil, subprocess, sys
sys.stdin.read()
subprocess.run(sys.argv[1:-1], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
shutil.rmtree(sys.argv[-1], ignore_errors=True)
"""


def postgres_binaries() -> Path | None:
    """The folder holding initdb, pg_ctl and postgres, or None when there is none."""
    found = shutil.which("initdb")
    candidates = [Path(found).resolve().parent] if found else []
    versions = Path("/usr/lib/postgresql").glob("*/bin")
    candidates += sorted(versions, key=_version_key, reverse=True)
    for folder in candidates:
        if all(os.access(folder / tool, os.X_OK) for tool in _TOOLS):
            return folder
    return None


def _version_key(folder: Path) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", folder.parent.name)) or (0,)


def unavailable(reason: str) -> None:
    """Skip the test, or fail it when AGENTFRAME_REQUIRE_POSTGRES=1."""
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(f"{reason} ({REQUIRE_ENV}=1 requires PostgreSQL)")
    pytest.skip(reason)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class TempServer:
    """One PostgreSQL cluster in a temporary folder; `start()`, then `dsn`, then `stop()`.

    `durable=False` turns fsync off (fine for tests: a killed client never needs it); the
    benchmark keeps it on so that figures compare with SQLite's synchronous=full."""

    def __init__(self, binaries: Path, *, durable: bool = False) -> None:
        self.binaries, self.durable = binaries, durable
        self.user = self._user()
        self.folder = Path(tempfile.mkdtemp(prefix="agentframe-pg-"))
        self.data = self.folder / "data"
        self.port = 0
        self._watchdog: subprocess.Popen[bytes] | None = None
        if self.user is not None:
            os.chown(self.folder, self.user.pw_uid, self.user.pw_gid)

    @staticmethod
    def _user() -> pwd.struct_passwd | None:
        if os.geteuid() != 0:
            return None
        for name in _USERS:
            try:
                return pwd.getpwnam(name)
            except KeyError:
                continue
        raise RuntimeError("running as root, and no unprivileged user (postgres, nobody)")

    @property
    def dsn(self) -> str:
        return f"postgresql://agentframe@127.0.0.1:{self.port}/postgres"

    def _command(self, tool: str, *args: str) -> list[str]:
        """`tool args`, run as the unprivileged user when we are root."""
        command = [str(self.binaries / tool), *args]
        if self.user is None:
            return command
        uid, gid = self.user.pw_uid, self.user.pw_gid
        return ["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups", *command]

    def _run(self, tool: str, *args: str, timeout: float = 120) -> None:
        command = self._command(tool, *args)
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd="/")
        if done.returncode != 0:
            raise RuntimeError(f"{tool} failed ({done.returncode}): {done.stderr[-2000:]}")

    def start(self) -> TempServer:
        self._run(
            "initdb",
            "-D",
            str(self.data),
            "-U",
            "agentframe",
            "--auth=trust",
            "-E",
            "UTF8",
            "--locale=C",
            "--no-sync",
        )
        settings = [
            "-c listen_addresses=127.0.0.1",
            "-c unix_socket_directories=''",
            "-c max_connections=300",
            "-c shared_buffers=64MB",
        ]
        if not self.durable:
            settings += ["-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off"]
        for attempt in range(3):  # the free port may be taken before the server binds it
            self.port = _free_port()
            options = " ".join([f"-p {self.port}", *settings])
            log = str(self.folder / "server.log")
            try:
                self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", log, "-w", "start")
                break
            except RuntimeError:
                if attempt == 2:
                    raise
        self._guard()
        return self

    def _guard(self) -> None:
        self._watchdog = subprocess.Popen(
            [
                sys.executable,
                "-c",
                _WATCHDOG,
                *self._command("pg_ctl", "-D", str(self.data), "-m", "immediate", "stop"),
                str(self.folder),
            ],
            stdin=subprocess.PIPE,
            start_new_session=True,  # a Ctrl-C of the tests does not kill it before its work
        )

    def stop(self) -> None:
        """Stop the server and remove its folder (the watchdog does both, then exits)."""
        if self._watchdog is not None:
            assert self._watchdog.stdin is not None
            self._watchdog.stdin.close()
            self._watchdog.wait(timeout=120)
            self._watchdog = None
        shutil.rmtree(self.folder, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres_dsn() -> Iterator[str]:
    """The DSN of a throwaway server shared by the test session (give each test its own
    `schema`). Skips when no PostgreSQL binaries exist, unless AGENTFRAME_REQUIRE_POSTGRES=1."""
    binaries = postgres_binaries()
    if binaries is None:
        unavailable(
            "no PostgreSQL binaries (initdb, pg_ctl, postgres) on PATH or under "
            "/usr/lib/postgresql/*/bin"
        )
    assert binaries is not None
    server = TempServer(binaries)
    try:
        server.start()
        yield server.dsn
    finally:
        server.stop()
