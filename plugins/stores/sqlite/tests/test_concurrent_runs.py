"""`sessions rm` in one process while a chat runs in another, on one SQLite file (eight
`agentframe run` processes on one session: `test_processes.py`, the multi-process kit)."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

from agentframe_store_sqlite import SqliteStore

from agentframe_core import Entry
from agentframe_core.testing import cli_command, cli_env, eventually, run_cli


def test_sessions_rm_during_a_chat_stops_its_turn_and_nothing_is_written(tmp_path: Path) -> None:
    """`sessions rm` while the chat's model is answering: the turn stops with a named error,
    the chat ends, and the deleted session gets no entry (issue 12, item 5)."""
    db = tmp_path / "sessions.db"
    config = tmp_path / "chat.yaml"
    config.write_text(
        "adapter: {use: scripted, replies: [{content: too late, delay: 3}]}\n"
        f"store: {{use: sqlite, path: {db}}}\n"
    )
    chat = subprocess.Popen(
        cli_command("--config", str(config), "chat", "--session", "S"),
        env=cli_env(tmp_path),
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
        # the model then 'thinks' for 3 s
        eventually(lambda: asyncio.run(_turn_started(db)), 60, what="the turn to start")
        rm = run_cli(tmp_path, "--config", str(config), "sessions", "rm", "S")
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
