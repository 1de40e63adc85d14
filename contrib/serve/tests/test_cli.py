"""`agentframe serve` refuses what it cannot serve before it binds: a bad `serve:` option
(named by file and field) or an unknown agent, never with a traceback."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from servekit import write_project

from agentframe_core.testing import run_cli


def line_of(file: Path, text: str) -> int:
    return next(n for n, line in enumerate(file.read_text().splitlines(), 1) if text in line)


def test_a_bad_serve_option_is_named_with_its_file_and_line(tmp_path: Path) -> None:
    write_project(tmp_path, ["unused"], serve={"max_messages": 0, "colour": "red"})
    done = run_cli(tmp_path, "serve", "--port", "8123", timeout=60)
    assert done.returncode == 2, done.stderr
    file = tmp_path / "agentframe.yaml"
    assert f"{file}:{line_of(file, 'max_messages')}: serve.max_messages:" in done.stderr
    assert f"{file}:{line_of(file, 'colour')}: serve.colour: unknown option" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_removed_remembered_conversations_says_what_to_do(tmp_path: Path) -> None:
    """It was accepted and bounded nothing once conversations became records in the store."""
    write_project(tmp_path, ["unused"], serve={"remembered_conversations": 500})
    done = run_cli(tmp_path, "serve", "--port", "8123", timeout=60)
    assert done.returncode == 2, done.stderr
    file = tmp_path / "agentframe.yaml"
    where = f"{file}:{line_of(file, 'remembered_conversations')}"
    assert f"{where}: serve.remembered_conversations: no longer a setting (remove it)" in (
        done.stderr
    )
    assert "sessions prune --older-than" in done.stderr and "Traceback" not in done.stderr


def test_an_unknown_agent_names_the_agents(tmp_path: Path) -> None:
    write_project(tmp_path, ["unused"])
    done = run_cli(tmp_path, "serve", "--port", "8123", "--agent", "nobody", timeout=60)
    assert done.returncode == 1, done.stderr
    assert "nobody" in done.stderr and "helper" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_config_check_accepts_a_serve_block(tmp_path: Path) -> None:
    write_project(tmp_path, ["unused"], serve={"max_messages": 10})
    done = run_cli(tmp_path, "config", "check", timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_config_check_names_a_wrong_serve_option(tmp_path: Path) -> None:
    write_project(tmp_path, ["unused"], serve={"max_mesages": 10})
    done = run_cli(tmp_path, "config", "check", timeout=60)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "serve.max_mesages: unknown option (did you mean 'max_messages'?)" in done.stderr
    assert "Traceback" not in done.stderr


def test_health_readiness_and_the_offered_agents(serve_process: Any) -> None:
    _, url = serve_process(["unused"], "--agent", "helper")
    assert httpx.get(f"{url}/healthz").json() == {"status": "ok"}
    assert httpx.get(f"{url}/readyz").json() == {"status": "ready", "agents": 1}
    models = httpx.get(f"{url}/v1/models").json()["data"]
    assert [m["id"] for m in models] == ["helper"]
    other = httpx.post(
        f"{url}/v1/chat/completions",
        json={"model": "other", "messages": [{"role": "user", "content": "hi"}]},
    )
    assert other.status_code == 404 and "models are this server's agents: helper" in other.text
