"""`agentframe run` against an unreachable server: the error and the -vv log name the URL
without its credentials, and no header value is printed."""

from __future__ import annotations

import socket
from pathlib import Path

from agentframe_core.testing import run_cli


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_run_errors_and_verbose_logs_mask_credentials(tmp_path: Path) -> None:
    port = closed_port()
    (tmp_path / "agentframe.yaml").write_text(
        "adapter:\n"
        "  use: openai\n"
        f'  base_url: "http://alice:PASSW0RD@127.0.0.1:{port}/v1?token=T0KEN&api_key=K3Y"\n'
        "  api_key_env: null\n"
        "  headers: {Authorization: Bearer H3ADER, X-Api-Key: X3Y}\n"
        "  max_retries: 1\n"
        "  backoff_base: 0.01\n"
        "store: memory\n"
    )
    done = run_cli(tmp_path, "-vv", "run", "hi", timeout=60)
    assert done.returncode == 1, done.stderr
    assert "cannot get an answer from http://***@127.0.0.1" in done.stderr
    assert "retry 1" in done.stderr  # the -vv log line that names the URL is there
    for secret in ("PASSW0RD", "T0KEN", "K3Y", "H3ADER", "X3Y"):
        assert secret not in done.stdout + done.stderr, secret
    assert "Traceback" not in done.stderr


def test_config_errors_and_doctor_mask_credentials(tmp_path: Path) -> None:
    (tmp_path / "agentframe.yaml").write_text(
        'adapter: {use: openai, base_url: "ftp://alice:PASSW0RD@example.com/v1"}\nstore: memory\n'
    )
    for args in (["config", "check"], ["config", "check", "--json"], ["doctor", "--json"]):
        done = run_cli(tmp_path, *args, timeout=60)
        assert done.returncode != 0
        assert "PASSW0RD" not in done.stdout + done.stderr, args
        assert "ftp://***@example.com" in done.stdout + done.stderr, args
