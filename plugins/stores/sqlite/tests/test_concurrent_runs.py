"""`sessions rm` in one process while a chat runs in another, on one SQLite file (eight
`agentframe run` processes on one session: `test_processes.py`, the multi-process kit)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

from agentframe_store_sqlite import SqliteStore

from agentframe_core import Entry

AGENTFRAME = Path(sys.executable).with_name("agentframe")


def test_sessions_rm_during_a_chat_stops_its_turn_and_nothing_is_written(tmp_path: Path) -> None:
    """`sessions rm` while the chat's model is answering: the turn stops with a named error,
    the chat ends, and the deleted session gets no entry (issue 12, item 5)."""
    db = tmp_path / "sessions.db"
    config = tmp_path / "chat.yaml"
    config.write_text(
        "adapter: {use: scripted, replies: [{content: too late, delay: 3}]}\n"
        f"store: {{use: sqlite, path: {db}}}\n"
    )
    env = {**os.environ, "AGENTFRAME_CACHE_DIR": str(tmp_path / "cache"), "NO_COLOR": "1"}
    chat = subprocess.Popen(
        [AGENTFRAME, "--config", config, "chat", "--session", "S"],
        env=env,
        cwd=tmp_path,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert chat.stdin is not None
        chat.stdin.write("hello\n")
        chat.stdin.flush()
        deadline = time.monotonic() + 60
        while not asyncio.run(_turn_started(db)):  # the model now 'thinks' for 3 s
            assert time.monotonic() < deadline, "the turn never started"
            time.sleep(0.05)
        rm = subprocess.run(
            [AGENTFRAME, "--config", config, "sessions", "rm", "S"],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert rm.returncode == 0, rm.stderr
        _, err = chat.communicate("are you there?\n", timeout=60)
    finally:
        chat.kill()
    assert "was deleted" in err and "Traceback" not in err, err
    assert "leaving the chat" in err  # the next line was not answered in a revived session
    assert asyncio.run(_entries(db)) == []


async def _turn_started(db: Path) -> bool:
    """The chat's message was claimed: its turn is running."""
    if not db.exists():
        return False
    store = SqliteStore(db)
    try:
        return any(not record.pending for record in await store.history("S"))
    finally:
        await store.aclose()


async def _entries(db: Path) -> list[Entry]:
    store = SqliteStore(db)
    try:
        return [record.entry for record in await store.history("S")]
    finally:
        await store.aclose()
