"""A project's hooks and slash commands' `!` lines run in the sandbox of the stack's `Bash`
(`sandbox:` of `use: claude-tools`), through `agentframe run` with a scripted model and a real
bubblewrap: sandboxed, they write the project and nothing outside it; with the sandbox off,
both, as before; a sandbox that cannot be made fails them, named, and they do not run.

Without a usable bubblewrap the tests that need one skip, saying why; with
`AGENTFRAME_REQUIRE_SANDBOX=1` (CI) they fail instead.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from agentframe_claude_tools import SandboxOptions, SandboxUnavailableError, sandbox_argv

from agentframe_core.testing import run_cli

#: A command writing `name` in the project, then trying to write it in `outside` too; each
#: attempt's outcome lands in the project's `name.log`.
WRITES = (
    '{{ echo in > "{project}/{name}-inside.txt"; '
    'echo out > "{outside}/{name}-outside.txt"; }} 2>> "{project}/{name}.log"; true'
)


@pytest.fixture(autouse=True)
def _trusted(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The project's hooks and programs may run (`test_trust.py` tests trust); a home of
    the test's own, so the user's settings and plugins stay out."""
    monkeypatch.setenv("AGENTFRAME_TRUST_ALL", "1")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "home" / "data"))
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)


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
    """A folder outside the project the sandbox sees (not under its private /tmp)."""
    folder = Path(tempfile.mkdtemp(prefix="agentframe-compat-sandbox-", dir="/var/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _project(root: Path, sandbox: Any, outside: Path) -> Path:
    """A git project with a `UserPromptSubmit` hook and a `/probe` command, each running
    `WRITES`, and a config whose claude-tools has `sandbox`."""
    (root / ".git").mkdir(parents=True)
    (root / ".claude" / "commands").mkdir(parents=True)
    config = {
        "adapter": {"use": "scripted", "replies": ["done"], "cycle": True},
        "store": {"use": "sqlite"},
        "context": {"use": "verbatim"},
        "tools": [{"use": "claude-tools", "root": ".", "sandbox": sandbox}],
    }
    (root / "agentframe.yaml").write_text(yaml.safe_dump(config))
    hook = WRITES.format(project="$CLAUDE_PROJECT_DIR", outside=outside, name="hook")
    hooks = {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": hook}]}]}
    (root / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    program = WRITES.format(project=root, outside=outside, name="bang")
    (root / ".claude" / "commands" / "probe.md").write_text(
        f"---\nallowed-tools: Bash\n---\nProbe: !`{program}` and !`echo ran`\n"
    )
    return root


def _prompt(project: Path, ran: Any) -> str:
    """The prompt the run stored: the command's expansion."""
    assert ran.returncode == 0, ran.stderr
    assert "Traceback" not in ran.stderr
    session = json.loads(ran.stdout)["session_id"]
    shown = run_cli(project, "sessions", "show", session, "--json")
    assert shown.returncode == 0, shown.stderr
    return shown.stdout


def test_sandboxed_hooks_and_programs_write_the_project_only(
    bwrap: None, tmp_path: Path, outside: Path
) -> None:
    project = _project(tmp_path / "project", "on", outside)
    settings = project / ".claude" / "settings.json"
    settings.write_text(
        json.dumps({**json.loads(settings.read_text()), "sandbox": {"enabled": True}})
    )
    ran = run_cli(project, "run", "--json", "/probe")
    assert "sandbox.enabled" not in ran.stderr  # the stack has one: nothing to warn about
    prompt = _prompt(project, ran)
    assert "Probe:" in prompt and " and ran" in prompt
    for name in ("hook", "bang"):
        assert (project / f"{name}-inside.txt").read_text() == "in\n", name
        assert not (outside / f"{name}-outside.txt").exists(), name
        assert "Read-only file system" in (project / f"{name}.log").read_text(), name


def test_unsandboxed_hooks_and_programs_write_anywhere_as_before(
    tmp_path: Path, outside: Path
) -> None:
    project = _project(tmp_path / "project", "off", outside)
    _prompt(project, run_cli(project, "run", "--json", "/probe"))
    for name in ("hook", "bang"):
        assert (project / f"{name}-inside.txt").read_text() == "in\n", name
        assert (outside / f"{name}-outside.txt").read_text() == "out\n", name
        assert not (project / f"{name}.log").read_text(), name


def test_a_sandbox_that_cannot_be_made_runs_neither_and_names_why(
    tmp_path: Path, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A `bwrap` that cannot make its namespaces (a script saying what bubblewrap says on a
    hardened kernel): the hook fails with its words, the command is refused at its line."""
    fake = tmp_path / "bin" / "bwrap"
    fake.parent.mkdir()
    fake.write_text(
        "#!/bin/sh\necho 'bwrap: No permissions to create a new namespace' >&2\nexit 1\n"
    )
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    project = _project(tmp_path / "project", "on", outside)
    ran = run_cli(project, "run", "/probe")
    assert ran.returncode == 1
    assert "Traceback" not in ran.stderr
    assert f"{project / '.claude' / 'commands' / 'probe.md'}:4" in ran.stderr, ran.stderr
    assert "cannot create its namespaces here" in ran.stderr
    assert "No permissions to create a new namespace" in ran.stderr
    hooked = run_cli(project, "run", "hello")
    assert hooked.returncode == 0, hooked.stderr
    assert "UserPromptSubmit hook" in hooked.stderr and "not run:" in hooked.stderr
    assert "No permissions to create a new namespace" in hooked.stderr
    for name in ("hook", "bang"):
        assert not (project / f"{name}-inside.txt").exists(), name
        assert not (outside / f"{name}-outside.txt").exists(), name


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


def test_a_sandboxed_hook_past_its_timeout_is_killed_with_its_whole_tree(
    bwrap: None, tmp_path: Path, outside: Path
) -> None:
    """A hook leaving a SIGTERM-proof sleeper in the background, then sleeping: at its
    timeout the run goes on, the hook named, and nothing of it is left on the host."""
    marker = f"agentframe-hook-{os.getpid()}-{time.time_ns()}"
    project = _project(tmp_path / "project", "on", outside)
    command = (
        f"bash -c 'trap \"\" TERM; exec -a {marker} sleep 300' & "
        f'touch "$CLAUDE_PROJECT_DIR/started"; exec -a {marker} sleep 300'
    )
    hooks = {
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": command, "timeout": 3}]}]
    }
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    ran = run_cli(project, "run", "hello")
    assert ran.returncode == 0, ran.stderr
    assert "UserPromptSubmit hook" in ran.stderr and "timed out after 3 s; killed" in ran.stderr
    assert (project / "started").exists()
    deadline = time.monotonic() + 20
    while _running(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _running(marker) == []


def test_claude_codes_own_sandbox_setting_is_not_silently_ignored(
    tmp_path: Path, outside: Path
) -> None:
    """A settings file turning Claude Code's sandbox on, in a stack without one: one warning
    naming the file and the setting that does sandbox."""
    project = _project(tmp_path / "project", "off", outside)
    settings = project / ".claude" / "settings.json"
    settings.write_text(
        json.dumps({**json.loads(settings.read_text()), "sandbox": {"enabled": True}})
    )
    ran = run_cli(project, "run", "hello")
    assert ran.returncode == 0, ran.stderr
    note = f"{settings}: sandbox.enabled: agentframe does not read Claude Code's sandbox"
    assert ran.stderr.count(note) == 1, ran.stderr
    assert "`sandbox: on` in the config's `use: claude-tools` block" in ran.stderr
