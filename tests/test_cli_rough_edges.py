"""The rough edges of a first hour with the CLI (issue 28) and failures that explain
themselves (issue 25): each met as a user meets it, through real `agentframe` processes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agentframe_core.testing.cli import cli_env, run_cli

ADD = """\
adapter:
  use: scripted
  cycle: true
  replies:
    - tool_calls: [{name: add, arguments: {a: 2, b: 3}}]
    - "The sum is 5."
store: {use: sqlite, path: sessions.db}
tools:
  - use: functions
    import: ["agentframe_core.examples:add"]
profiles:
  short: {limits: {max_turns: 1}}
"""


def agentframe(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(cwd, *args, timeout=120)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "agentframe.yaml").write_text(ADD)
    return tmp_path


def test_root_options_work_after_the_subcommand_too(project: Path) -> None:
    elsewhere = project / "elsewhere"
    elsewhere.mkdir()
    config = str(project / "agentframe.yaml")
    ran = agentframe(elsewhere, "run", "2+3?", "-c", config, "-v")
    assert ran.returncode == 0, ran.stderr
    assert "INFO agentframe.chat: config:" in ran.stderr  # -v after the subcommand
    shown = agentframe(project, "config", "show", "--json", "-p", "short")
    assert json.loads(shown.stdout)["config"]["limits"] == {"max_turns": 1}
    checked = agentframe(project, "config", "check", "-p", "nope")
    assert checked.returncode == 2 and "nope" in checked.stderr
    listed = agentframe(elsewhere, "sessions", "list", "--json", "--config", config)
    assert len(json.loads(listed.stdout)) == 1, listed.stderr
    # a plugin's command gets them too, and after the subcommand they win over the root's
    plugin = agentframe(elsewhere, "-c", "missing.yaml", "skills", "list", "-c", config)
    assert plugin.returncode == 0, plugin.stderr
