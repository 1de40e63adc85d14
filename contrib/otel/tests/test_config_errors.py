"""A wrong `telemetry:` block is a config error with its file, line and field, for a run, for
`agentframe trace` and for `agentframe config check`: it used to be a warning, and tracing was
silently off."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentframe_core.testing import run_cli

CONFIG = """\
adapter: {use: scripted, replies: [Hello.]}
store: {use: memory}
telemetry:
  keep_days: 0
  endpoin: http://localhost:4318
"""


@pytest.mark.parametrize("command", [["run", "hi"], ["trace", "list"], ["config", "check"]])
def test_a_wrong_block_names_file_line_and_field(tmp_path: Path, command: list[str]) -> None:
    config = tmp_path / "agentframe.yaml"
    config.write_text(CONFIG)
    done = run_cli(tmp_path, *command, timeout=120)
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"{config}:4: telemetry.keep_days: Input should be greater than 0" in done.stderr
    assert f"{config}:5: telemetry.endpoin: unknown option (did you mean 'endpoint'?)" in (
        done.stderr
    )
    assert "Traceback" not in done.stderr and "Hello." not in done.stdout


def test_a_valid_block_runs(tmp_path: Path) -> None:
    (tmp_path / "agentframe.yaml").write_text(
        CONFIG.replace("  keep_days: 0\n  endpoin", "  endpoint")
    )
    done = run_cli(tmp_path, "run", "hi", timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Hello." in done.stdout
