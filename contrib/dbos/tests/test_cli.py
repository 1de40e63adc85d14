"""`agentframe status` and `cancel` on a real worker (DBOS on SQLite); unknown ids and a
missing system database are errors with a message, not tracebacks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

AGENTFRAME = Path(sys.executable).with_name("agentframe")


def test_a_running_run_shows_its_status_and_is_cancelled(tmp_path: Path) -> None:
    cfg = tmp_path / "agentframe.yaml"
    cfg.write_text(
        "adapter: {use: scripted, replies: [{content: never seen, delay: 60}]}\n"
        f"store: {{use: sqlite, path: {tmp_path / 'sessions.db'}}}\n"
    )
    env = {
        **os.environ,
        "AGENTFRAME_DBOS_URL": f"sqlite:///{tmp_path / 'dbos.sqlite'}",
        "HOME": str(tmp_path),
    }

    def agentframe(*args: str) -> subprocess.CompletedProcess[str]:
        command = [AGENTFRAME, "--config", cfg, *args]
        return subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)

    missing = agentframe("submit", "-s", "S", "hello")
    assert missing.returncode == 1 and "start `agentframe worker` once" in missing.stderr
    worker = subprocess.Popen(
        [AGENTFRAME, "--config", cfg, "worker", "--poll-interval", "0.2"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert worker.stderr is not None and worker.stderr.readline().startswith("worker local")
        workflow_id = agentframe("submit", "-s", "S", "hello").stdout.strip()
        deadline = time.monotonic() + 60
        while "load_history" not in (shown := agentframe("status", workflow_id).stdout):
            assert time.monotonic() < deadline, shown
            time.sleep(0.3)
        assert json.loads(shown)["status"].endswith("PENDING")
        cancelled = agentframe("cancel", workflow_id)
        assert cancelled.returncode == 0, cancelled.stderr
        assert json.loads(agentframe("status", workflow_id).stdout)["status"].endswith("CANCELLED")
        unknown = agentframe("status", "no-such-run")
        assert unknown.returncode == 1 and "no-such-run" in unknown.stderr
        assert "Traceback" not in unknown.stderr + missing.stderr
    finally:
        worker.terminate()
        worker.wait(30)
