"""Eight real processes append to and compact shared sessions while being killed with
SIGKILL, again and again: no acknowledged entry is lost and no compaction is half applied."""

from __future__ import annotations

import json
import os
import queue
import random
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
import pytest
from agentframe_store_postgres import PostgresStore

WORKERS = Path(__file__).with_name("workers.py")
pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs SIGKILL")
SESSIONS = ("shared-a", "shared-b")


@dataclass
class Reports:
    """What the children said they had done, over all their lives."""

    appended: set[str] = field(default_factory=set)
    compacted: set[str] = field(default_factory=set)
    kills: int = 0

    def take(self, line: str) -> None:
        verb, _, entry_id = line.partition(" ")
        if verb == "appended":
            self.appended.add(entry_id)
        elif verb == "compacted":
            self.compacted.add(entry_id)


@dataclass
class Child:
    process: subprocess.Popen[str]
    lines: queue.Queue[str | None]


def spawn(dsn: str, schema: str, session_id: str) -> Child:
    process = subprocess.Popen(
        [sys.executable, str(WORKERS), dsn, schema, session_id],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: queue.Queue[str | None] = queue.Queue()

    def pump() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            if line.endswith("\n"):  # a line cut by the kill was not reported
                lines.put(line.strip())
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    return Child(process, lines)


def drain(child: Child, reports: Reports, *, until_end: bool) -> None:
    """Take what the child has said so far (all of it, up to its end, if `until_end`)."""
    while True:
        try:
            line = child.lines.get(timeout=30) if until_end else child.lines.get_nowait()
        except queue.Empty:
            return
        if line is None:
            return
        reports.take(line)


def await_ready(child: Child) -> None:
    line = child.lines.get(timeout=120)
    if line != "ready":
        assert child.process.stderr is not None
        pytest.fail(f"a child did not start: {child.process.stderr.read()[-2000:]}")


def kill(child: Child, reports: Reports) -> None:
    child.process.send_signal(signal.SIGKILL)
    child.process.wait(timeout=30)
    drain(child, reports, until_end=True)
    reports.kills += 1


def check(dsn: str, schema: str, reports: Reports) -> dict[str, set[str]]:
    """Every reported write is stored and every compaction in the schema is whole; the
    visible ids of each session."""
    with psycopg.connect(dsn, options=f"-c search_path={schema}") as db:
        rows = db.execute(
            "SELECT s.id, e.id, e.kind, e.meta, e.subsumed FROM entries e "
            "JOIN sessions s ON s.key = e.session"
        ).fetchall()
    stored = {entry_id for _, entry_id, *_ in rows}
    lost = reports.appended - stored
    assert not lost, f"{len(lost)} acknowledged appends are missing"
    assert reports.compacted <= stored, "an acknowledged compaction is missing"
    subsumed = {entry_id for _, entry_id, _, _, flag in rows if flag}
    claimed: set[str] = set()
    for _, entry_id, kind, meta, _ in rows:
        if kind == "compaction":
            folds = set(json.loads(meta)["subsumes"])
            assert folds <= subsumed, f"compaction {entry_id} is half applied"
            claimed |= folds
    assert subsumed == claimed, "entries are flagged subsumed by no compaction"
    visible: dict[str, set[str]] = {sid: set() for sid in SESSIONS}
    for sid, entry_id, _, _, flag in rows:
        if not flag:
            visible[sid].add(entry_id)
    return visible


async def test_eight_processes_killed_again_and_again_lose_nothing(
    postgres_dsn: str, schema: str, pg_store: PostgresStore
) -> None:
    seed = int.from_bytes(os.urandom(4))
    print(f"random seed {seed}")
    rng = random.Random(seed)
    reports = Reports()
    children: list[Child | None] = [None] * 8
    rounds = 6
    try:
        for _ in range(rounds):
            started = [n for n, child in enumerate(children) if child is None]
            for n in started:
                children[n] = spawn(postgres_dsn, schema, SESSIONS[n % 2])
            for n in started:  # all eight work at once before the kills
                await_ready(children[n])  # type: ignore[arg-type]
            time.sleep(rng.uniform(0.4, 1.2))
            for n, child in enumerate(children):
                assert child is not None
                drain(child, reports, until_end=False)
                if child.process.poll() is not None:
                    assert child.process.stderr is not None
                    pytest.fail(f"child {n} died: {child.process.stderr.read()[-2000:]}")
                if rng.random() < 0.5:
                    kill(child, reports)
                    children[n] = None
    finally:
        for child in children:
            if child is not None:
                kill(child, reports)
    visible = check(postgres_dsn, schema, reports)
    for sid in SESSIONS:  # the store's own read path agrees, in order
        context = await pg_store.context(sid)
        assert {e.id for e in context} == visible[sid]
        stamps = [e.created_at for e in context]
        assert stamps == sorted(stamps)
    assert len(reports.appended) > 100, "the children did too little to prove anything"
    print(
        f"{reports.kills} kills of 8 processes on {len(SESSIONS)} sessions: "
        f"{len(reports.appended)} acknowledged appends and {len(reports.compacted)} "
        "compactions, all stored"
    )
