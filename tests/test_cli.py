"""The CLI as a user runs it: real subprocesses, a config file, a durable store."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from agentframe_core.testing import Child, cli_command, cli_env, eventually, run_cli

CONFIG = """\
adapter:
  use: scripted
  cycle: true
  replies:
    - tool_calls: [{name: add, arguments: {a: 2, b: 3}}]
    - "The sum is 5."
store: {use: jsonl, dir: sessions}
tools:
  - use: functions
    import: ["agentframe_core.examples:add"]
"""


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    (tmp_path / "agentframe.yaml").write_text(CONFIG.replace("dir: sessions", f"dir: {tmp_path}/s"))
    return tmp_path


def test_run_streams_and_shows_tool_calls(workdir):
    done = run_cli(workdir, "run", "What is 2+3?")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "The sum is 5."
    assert "→ add(a=2, b=3) = 5.0" in done.stderr
    assert "session: " in done.stderr


def test_run_json_and_continue_a_session(workdir):
    first = json.loads(run_cli(workdir, "run", "--json", "2+3?").stdout)
    assert first["reply"] == "The sum is 5." and first["turns"] == 2
    assert first["tool_calls"][0]["name"] == "add" and first["tool_calls"][0]["result"] == "5.0"
    assert set(first) >= {"session_id", "reply", "usage", "tool_calls", "turns"}
    sid = first["session_id"]
    run_cli(workdir, "run", "--session", sid, "again")

    listed = json.loads(run_cli(workdir, "sessions", "list", "--json").stdout)
    assert [s["id"] for s in listed] == [sid] and listed[0]["title"] == "2+3?"
    shown = json.loads(run_cli(workdir, "sessions", "show", sid, "--json").stdout)
    assert [e["kind"] for e in shown].count("user") == 2
    assert run_cli(workdir, "sessions", "rm", sid).returncode == 0
    assert json.loads(run_cli(workdir, "sessions", "list", "--json").stdout) == []
    missing = run_cli(workdir, "sessions", "show", "nope")
    assert missing.returncode == 1 and "no session 'nope'" in missing.stderr


def test_stopped_early_exits_non_zero(workdir):
    (workdir / "agentframe.yaml").write_text(CONFIG + "limits: {max_turns: 1}\n")
    done = run_cli(workdir, "run", "2+3?")
    assert done.returncode == 1
    assert "stopped: max_turns after 1 model call(s)" in done.stderr


def test_config_errors_exit_2_with_file_and_line(workdir):
    (workdir / "agentframe.yaml").write_text(CONFIG.replace("cycle: true", "cycel: true"))
    done = run_cli(workdir, "run", "hi")
    assert done.returncode == 2
    assert "agentframe.yaml:3: adapter.cycel: unknown option for 'scripted'" in done.stderr
    assert "Traceback" not in done.stderr


def test_config_show_check_schema_and_doctor(workdir):
    shown = json.loads(run_cli(workdir, "config", "show", "--json").stdout)
    assert shown["config"]["adapter"]["use"] == "scripted"
    (workdir / "secret.yaml").write_text(
        "adapter: {use: openai, base_url: 'http://x', model: m, api_key: s3cr3t}\n"
    )
    masked = run_cli(workdir, "-c", "secret.yaml", "config", "show")
    assert "s3cr3t" not in masked.stdout and "api_key: '***'" in masked.stdout
    assert run_cli(workdir, "config", "check").returncode == 0
    schema = json.loads(run_cli(workdir, "config", "schema").stdout)
    options = schema["properties"]["adapter"]["anyOf"]
    adapters = {o["properties"]["use"]["const"] for o in options if "properties" in o}
    assert "scripted" in adapters
    assert "scripted" in options[-1]["enum"]  # the `adapter: scripted` shorthand
    import yaml
    from jsonschema import Draft202012Validator

    Draft202012Validator.check_schema(schema)
    config = yaml.safe_load((workdir / "agentframe.yaml").read_text())
    assert not list(Draft202012Validator(schema).iter_errors(config))
    doctor = run_cli(workdir, "doctor", "--json")
    report = json.loads(doctor.stdout)
    assert any(c["name"] == "config" and c["ok"] for c in report["checks"])


def test_doctor_asks_the_model_for_one_token_unless_quick(workdir):
    checked = json.loads(run_cli(workdir, "doctor", "--json").stdout)
    model = next(c for c in checked["checks"] if c["name"] == "model")
    assert model["ok"] and model["detail"].startswith("scripted answered")
    (workdir / "mute.yaml").write_text("adapter: {use: scripted, replies: []}\n")
    broken = run_cli(workdir, "-c", "mute.yaml", "doctor")
    assert broken.returncode == 1, broken.stdout
    assert "FAIL model: scripted failed a one-token request: ScriptExhaustedError" in broken.stdout
    assert "Traceback" not in broken.stdout + broken.stderr
    quick = run_cli(workdir, "-c", "mute.yaml", "doctor", "--quick")
    assert quick.returncode == 0 and "model: not asked (--quick)" in quick.stdout


def test_help_everywhere(workdir):
    for args in (["--help"], ["run", "--help"], ["sessions", "--help"], ["config", "schema", "-h"]):
        done = run_cli(workdir, *args)
        assert done.returncode == 0 and "Usage:" in done.stdout, args


def test_chat_ctrl_c_cancels_the_turn_not_the_session(workdir):
    (workdir / "agentframe.yaml").write_text(
        "adapter:\n  use: scripted\n  replies:\n    - {content: slow, delay: 30}\n    - quick\n"
        f"store: {{use: jsonl, dir: {workdir}/s}}\n"
    )
    with Child(cli_command("chat"), cwd=workdir, env=cli_env(workdir), stdin=True) as chat:
        chat.send("first question")
        # wait until the run starts (its claim is in the session log): the scripted model is
        # then 'thinking' for 30 s
        eventually(
            lambda: any('"op": "claim"' in p.read_text() for p in (workdir / "s").glob("*.jsonl")),
            60,
            what="the run to start",
        )
        chat.process.send_signal(signal.SIGINT)
        eventually(lambda: "run cancelled" in chat.stderr(), 60, what="the turn to be cancelled")
        chat.send("second question")
        chat.process.stdin.close()  # then end of input
        out = "\n".join(chat.wait(60))
        err = chat.stderr()
    assert chat.process.returncode == 0, err
    assert "run cancelled" in err
    assert "quick" in out


def test_the_sync_facade_runs_a_prompt_from_a_script(workdir):
    script = (
        "import agentframe_core\n"
        "result = agentframe_core.run('2+3?')\n"
        "print(result.outcome.value, result.reply)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=workdir,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "AGENTFRAME_CACHE_DIR": str(workdir / "cache")},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "completed The sum is 5."


def test_config_check_refuses_two_dispatchers_offering_one_tool(workdir):
    config = workdir / "agentframe.yaml"
    config.write_text(
        config.read_text()
        + "  - use: functions\n"
        + '    import: ["agentframe_core.examples:current_time", "agentframe_core.examples:add"]\n'
    )
    done = run_cli(workdir, "config", "check")
    assert done.returncode == 2, done.stdout + done.stderr
    assert (
        f"{config}:11: tools[1]: tool 'add' is offered by both tools[0] ('functions', line 9) "
        "and tools[1] ('functions')" in done.stderr
    )
    report = json.loads(run_cli(workdir, "config", "check", "--json").stdout)
    assert report["ok"] is False and [i["path"] for i in report["issues"]] == ["tools[1]"]
