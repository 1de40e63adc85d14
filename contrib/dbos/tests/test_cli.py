"""`agentframe status` and `cancel` on a real worker (DBOS on SQLite); unknown ids and a
missing system database are errors with a message, not tracebacks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentframe_core.testing import eventually, run_cli


def test_a_running_run_shows_its_status_and_is_cancelled(tmp_path: Path, agentframe: Any) -> None:
    agentframe.cfg.write_text(
        "adapter: {use: scripted, replies: [{content: never seen, delay: 60}]}\n"
        f"store: {{use: sqlite, path: {tmp_path / 'sessions.db'}}}\n"
    )
    missing = agentframe("submit", "-s", "S", "hello")
    assert missing.returncode == 1 and "start `agentframe worker` once" in missing.stderr
    with agentframe.worker():
        workflow_id = agentframe("submit", "-s", "S", "hello").stdout.strip()

        def status_once_loading() -> str:
            shown: str = agentframe("status", workflow_id).stdout
            return shown if "load_history" in shown else ""

        shown = eventually(status_once_loading, 60, what="the run to load its history")
        assert json.loads(shown)["status"].endswith("PENDING")
        cancelled = agentframe("cancel", workflow_id)
        assert cancelled.returncode == 0, cancelled.stderr
        assert json.loads(agentframe("status", workflow_id).stdout)["status"].endswith("CANCELLED")
        unknown = agentframe("status", "no-such-run")
        assert unknown.returncode == 1 and "no-such-run" in unknown.stderr
        assert "Traceback" not in unknown.stderr + missing.stderr


def test_commands_on_a_finished_run_and_a_missing_config_are_errors(
    tmp_path: Path, agentframe: Any
) -> None:
    """issue 23 #15: `send` to a finished run said `sent`, `cancel` of one said `cancelled`,
    and `submit -c /missing` exited 0."""
    agentframe.cfg.write_text(
        "adapter: {use: scripted, replies: [All done.]}\n"
        f"store: {{use: sqlite, path: {tmp_path / 'sessions.db'}}}\n"
    )
    with agentframe.worker():
        missing = agentframe("submit", "-s", "S", "hello", config=tmp_path / "missing.yaml")
        assert missing.returncode != 0 and "missing.yaml" in missing.stderr
        workflow_id = agentframe("submit", "-s", "S", "hello").stdout.strip()
        assert agentframe("result", workflow_id).stdout.strip() == "All done."
        sent = agentframe("send", workflow_id, "call-1", "late")
        assert sent.returncode == 1 and "sent the result" not in sent.stdout
        assert f"run {workflow_id} has ended (SUCCESS)" in sent.stderr
        cancelled = agentframe("cancel", workflow_id)
        assert cancelled.returncode == 1 and "cancelled" not in cancelled.stdout
        assert "has already ended (SUCCESS): not cancelled" in cancelled.stderr
        assert json.loads(agentframe("status", workflow_id).stdout)["status"].endswith("SUCCESS")
        for result in (missing, sent, cancelled):
            assert "Traceback" not in result.stderr


def test_an_unreachable_postgres_system_database_is_one_line(tmp_path: Path) -> None:
    """issue 23 #15: each command printed 140-240 lines of traceback."""
    cfg = tmp_path / "agentframe.yaml"
    cfg.write_text("adapter: scripted\n")
    url = "postgresql://agentframe:topsecret-7@127.0.0.1:1/dbos"
    env = {"AGENTFRAME_DBOS_URL": url, "HOME": str(tmp_path)}
    for args in (
        ["submit", "-s", "S", "hello"],
        ["status", "w"],
        ["result", "w"],
        ["send", "w", "c", "t"],
        ["cancel", "w"],
        ["worker"],
    ):
        done = run_cli(tmp_path, "--config", str(cfg), *args, env=env, timeout=120)
        assert done.returncode == 1, (args, done.stdout, done.stderr)
        (line,) = done.stderr.strip().splitlines()
        assert line.startswith("error: cannot reach the DBOS system database"), line
        assert "127.0.0.1" in line and "topsecret-7" not in done.stderr + done.stdout
