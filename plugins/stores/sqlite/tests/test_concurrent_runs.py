"""Eight real `agentframe run --session S` processes on one SQLite file: one turn at a time.

Each process has its own scripted model (a tool call, then an answer naming the process), so
the history shows whose turn answered what. Every run must take its turn or report the turn
that answered its message, and the history must be whole turns (issue 12, item 4).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from agentframe_store_sqlite import SqliteStore

from agentframe_core import Entry, Message, RunContext, Stack, VerbatimBuilder
from agentframe_core.testing import ScriptedAdapter, check_turns_well_formed

AGENTFRAME = Path(sys.executable).with_name("agentframe")
RUNS = 8


def _config(tmp_path: Path, db: Path, n: int) -> Path:
    file = tmp_path / f"run{n}.yaml"
    file.write_text(
        "adapter:\n"
        "  use: scripted\n"
        "  replies:\n"
        f"    - {{tool_calls: [{{name: basename, arguments: {{p: /runs/{n}}}}}], delay: 0.05}}\n"
        f"    - {{content: answer of run {n}, delay: 0.05}}\n"
        "  cycle: true\n"
        f"store: {{use: sqlite, path: {db}}}\n"
        "tools: [{use: functions, import: ['os.path:basename']}]\n"
    )
    return file


def test_eight_processes_on_one_session_leave_whole_turns(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    env = {**os.environ, "AGENTFRAME_CACHE_DIR": str(tmp_path / "cache"), "HOME": str(tmp_path)}
    runs = [
        subprocess.Popen(
            [
                AGENTFRAME,
                "--config",
                _config(tmp_path, db, n),
                "run",
                "--json",
                "-s",
                "S",
                f"q {n}",
            ],
            env=env,
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(RUNS)
    ]
    results = []
    for run in runs:
        out, err = run.communicate(timeout=120)
        assert run.returncode == 0, err
        results.append(json.loads(out))
    assert any(not r.get("coalesced") for r in results)
    entries, messages = asyncio.run(_history(db))
    check_turns_well_formed(entries, {f"q {n}": r["reply"] for n, r in enumerate(results)})
    assert not any("[no result was recorded" in m.content for m in messages)
    replies = [m.content for m in messages if m.role == "assistant" and m.content]
    assert all(reply.count("answer of run") <= 1 for reply in replies), replies


async def _history(db: Path) -> tuple[list[Entry], list[Message]]:
    """The session's context, and the request the next model call would get."""
    store = SqliteStore(db)
    try:
        stack = Stack(ScriptedAdapter(), store, VerbatimBuilder())
        messages = await stack.context.build(RunContext("S", stack, None), "system")
        return await store.context("S"), messages
    finally:
        await store.aclose()


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
