"""`agentframe llama ...` as a user runs it: real subprocesses, a config file, a real server."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest
from agentframe_llamacpp import LlamaRuntime
from agentframe_llamacpp.cli import running_text
from agentframe_llamacpp.server import pid_alive

from agentframe_core.testing import run_cli


def as_json(done: subprocess.CompletedProcess[str]) -> Any:
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture
def workdir(llama_runtime: LlamaRuntime, tmp_path: Path) -> Path:
    found = llama_runtime.store.locate("smollm2", llama_runtime.options.models["smollm2"])
    assert found is not None
    (tmp_path / "agentframe.yaml").write_text(
        f"adapter:\n  use: llamacpp\n  models:\n    tiny:\n      path: {found.path}\n"
        "      ctx_size: 1024\nstore: memory\n"
    )
    return tmp_path


def test_start_status_logs_stop(workdir: Path) -> None:
    (row,) = as_json(run_cli(workdir, "llama", "status", "--json"))
    assert row["model"] == "tiny" and row["default"] and not row["running"]
    (started,) = as_json(run_cli(workdir, "llama", "start", "--json"))
    pid = started["pid"]
    try:
        assert pid_alive(pid), "a started server must outlive `llama start`"
        assert httpx.get(f"{started['url']}/health").status_code == 200
        (row,) = as_json(run_cli(workdir, "llama", "status", "--json"))
        assert row["running"] and row["pid"] == pid and row["owner"] == "detached"
        assert row["url"] == started["url"] and row["file"].endswith(".gguf")
        again = as_json(run_cli(workdir, "llama", "start", "--json"))
        assert again[0]["pid"] == pid, "a second start must find the running server"
        logs = as_json(run_cli(workdir, "llama", "logs", "--json", "-n", "200"))
        assert any("listening" in line for line in logs["lines"])
        text = run_cli(workdir, "llama", "status").stdout
        assert f"* tiny: running at {started['url']} (server pid {pid}, detached)" in text
    finally:
        stopped = as_json(run_cli(workdir, "llama", "stop", "--json"))
    assert stopped == [{"model": "tiny", "stopped": True}]
    assert not pid_alive(pid)
    (row,) = as_json(run_cli(workdir, "llama", "status", "--json"))
    assert not row["running"]


def test_status_says_which_pid_is_the_server_and_which_started_it() -> None:
    """Two bare pids side by side left users guessing which one to kill."""
    row = {"url": "http://127.0.0.1:45021", "pid": 81234, "owner": 81200}
    assert running_text(row) == (
        "running at http://127.0.0.1:45021 (server pid 81234, started by agentframe pid 81200)"
    )
    row["owner"] = "detached"
    assert running_text(row) == "running at http://127.0.0.1:45021 (server pid 81234, detached)"


def test_pull_reports_the_model_file(workdir: Path) -> None:
    (row,) = as_json(run_cli(workdir, "llama", "pull", "--json"))
    assert row["model"] == "tiny" and row["size"] == 98362432 and row["origin"] == "path"


def test_a_bad_block_is_a_config_error_with_its_line(tmp_path: Path) -> None:
    (tmp_path / "agentframe.yaml").write_text(
        "adapter:\n  use: llamacpp\n  models:\n    x:\n      ctx_size: -1\n      path: a.gguf\n"
    )
    done = run_cli(tmp_path, "llama", "status")
    assert done.returncode == 2
    assert "agentframe.yaml:5: adapter.models.x.ctx_size" in done.stderr


def test_a_missing_binary_says_how_to_get_one(tmp_path: Path) -> None:
    (tmp_path / "m.gguf").write_bytes(b"GGUF" + b"\0" * 64)
    (tmp_path / "agentframe.yaml").write_text(
        "adapter:\n  use: llamacpp\n  binary_path: /nonexistent/llama-server\n"
        f"  models:\n    m:\n      path: {tmp_path / 'm.gguf'}\n"
    )
    done = run_cli(tmp_path, "llama", "start")
    assert done.returncode == 1
    assert "binary_path '/nonexistent/llama-server' is not an executable file" in done.stderr


def test_a_misspelt_option_gets_the_kernels_message(tmp_path: Path) -> None:
    (tmp_path / "agentframe.yaml").write_text(
        "store: {use: not-installed}\nadapter:\n  use: llamacpp\n  start_timout: 5\n"
    )
    done = run_cli(tmp_path, "llama", "status")
    assert done.returncode == 2, done.stderr
    assert (
        "agentframe.yaml:4: adapter.start_timout: unknown option for 'llamacpp' "
        "(did you mean 'start_timeout'?)"
    ) in done.stderr


def test_doctor_starts_the_model_and_gets_one_token(workdir: Path) -> None:
    done = run_cli(workdir, "doctor", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    checks = {c["name"]: c for c in json.loads(done.stdout)["checks"]}
    assert checks["model"]["detail"].startswith("llamacpp answered"), checks["model"]
    assert checks["llama-server portability"]["ok"], checks["llama-server portability"]
    (row,) = as_json(run_cli(workdir, "llama", "status", "--json"))
    assert not row["running"], "the doctor left its server running"


def test_doctor_reports_the_binary_and_the_model(tmp_path: Path) -> None:
    done = run_cli(tmp_path, "doctor", "--quick", "--json")
    checks = {c["name"]: c for c in json.loads(done.stdout)["checks"]}
    assert checks["llama-server"]["ok"], checks["llama-server"]
    assert "llama-server" in checks["llama-server"]["detail"]
    model = checks["model smollm2"]
    assert model["ok"] and ("not fetched yet" in model["detail"] or ".gguf" in model["detail"])
    (tmp_path / "agentframe.yaml").write_text("adapter: {use: llamacpp, binary_path: /nope}\n")
    broken = json.loads(run_cli(tmp_path, "doctor", "--quick", "--json").stdout)
    binary = next(c for c in broken["checks"] if c["name"] == "llama-server")
    assert not binary["ok"] and "/nope" in binary["fix"]


def test_stop_leaves_other_configs_servers_unless_all(workdir: Path) -> None:
    config = (workdir / "agentframe.yaml").read_text()
    (workdir / "other.yaml").write_text(config.replace("ctx_size: 1024", "ctx_size: 512"))
    (started,) = as_json(run_cli(workdir, "-c", "other.yaml", "llama", "start", "--json"))
    pid = started["pid"]
    try:
        rows = as_json(run_cli(workdir, "llama", "status", "--json"))
        ours, other = rows
        assert ours["ours"] and not ours["running"]
        assert not other["ours"] and other["pid"] == pid
        assert "`agentframe llama start`" in other["whose"]
        done = run_cli(workdir, "llama", "stop")
        assert "tiny: was not running" in done.stdout
        assert "1 server(s) of other configs left running" in done.stdout
        assert pid_alive(pid), "`llama stop` stopped another config's server"
        doctor = run_cli(workdir, "doctor", "--quick", "--json")
        checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
        assert "not this config's" in checks[f"llama-server pid {pid}"]["detail"]
        stopped = as_json(run_cli(workdir, "llama", "stop", "--all", "--json"))
        assert {"model": "tiny", "pid": pid, "stopped": True} in stopped
    finally:
        run_cli(workdir, "-c", "other.yaml", "llama", "stop")
    assert not pid_alive(pid)
