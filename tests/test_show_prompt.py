"""`run --show-prompt` prints what each model call is sent, and `-vv` shows it instead of the
plugin-discovery lines (issue 25)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentframe_core.testing import run_cli

CONFIG = """\
adapter:
  use: scripted
  replies:
    - tool_calls: [{name: add, arguments: {a: 2, b: 3}}]
      usage: {prompt_tokens: 321, completion_tokens: 9, cached_tokens: 300}
    - "The sum is 5."
store: {use: memory}
tools:
  - use: functions
    import: ["agentframe_core.examples:add"]
"""


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cwd = tmp_path_factory.mktemp("show-prompt")
    (cwd / "agentframe.yaml").write_text(CONFIG)
    return cwd


def test_show_prompt_prints_each_request_with_its_tokens(workdir: Path) -> None:
    done = run_cli(workdir, "run", "--show-prompt", "--json", "add them, password=hunter22x")
    assert done.returncode == 0, done.stderr
    err = done.stderr
    assert "═══ model call 1: 2 message(s), 1 tool(s)" in err
    assert "═══ model call 2: 4 message(s), 1 tool(s)" in err
    assert "── [1] system: ~" in err and "You are an AI agent." in err
    assert "── [2] user: ~" in err and "add them, password=***" in err
    assert '"name": "add"' in err and '"parameters": {' in err  # the tool schema, as sent
    assert 'tool call: {"id": ' in err and "(result of " in err
    assert "model call 1 reported: 321 prompt tokens (300 cached), 9 completion" in err
    assert "hunter22x" not in err + done.stdout
    assert done.stdout.lstrip().startswith("{")  # --json stays clean on stdout


def test_debug_logging_shows_the_requests_not_plugin_discovery(workdir: Path) -> None:
    done = run_cli(workdir, "-vv", "run", "add them")
    assert done.returncode == 0, done.stderr
    assert "model call 1: 2 message(s)" in done.stderr
    assert "stevedore" not in done.stderr and "found extension" not in done.stderr
    everything = run_cli(workdir, "-vvv", "run", "add them")
    assert "stevedore" in everything.stderr
