"""Several real processes on one file: concurrent writers, and a writer killed with SIGKILL."""

from __future__ import annotations

import json
import os
import queue
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from agentframe_store_sqlite import SqliteStore

WORKERS = Path(__file__).with_name("workers.py")
pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs SIGKILL")


def spawn(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(WORKERS), *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def integrity(path: Path) -> str:
    with sqlite3.connect(path) as db:
        return str(db.execute("PRAGMA integrity_check").fetchone()[0])


async def test_two_processes_write_one_file_at_once(tmp_path: Path) -> None:
    path = tmp_path / "new" / "sessions.db"  # neither exists: both create and migrate it
    count = 150
    writers = [spawn("write", str(path), "shared", str(count), f"own-{i}") for i in range(2)]
    for writer in writers:
        assert writer.stdout is not None and writer.stdout.readline() == "ready\n"
    for writer in writers:
        assert writer.stdin is not None
        writer.stdin.write("go\n")
        writer.stdin.flush()
    for writer in writers:
        _, err = writer.communicate(timeout=120)
        assert writer.returncode == 0, err

    assert integrity(path) == "ok"
    store = SqliteStore(path)
    try:
        shared = await store.context("shared")
        contents = sorted(e.content for e in shared)
        assert contents == sorted(f"shared {n}" for n in range(count) for _ in range(2))
        stamps = [e.created_at for e in shared]
        assert stamps == sorted(stamps)
        for i in range(2):
            own = await store.context(f"own-{i}")
            assert [e.content for e in own] == [f"own {n}" for n in range(count)]
        infos = {info.id: info.entries for info in await store.sessions()}
        assert infos == {"shared": 2 * count, "own-0": count, "own-1": count}
    finally:
        await store.aclose()


@dataclass
class Reports:
    """What the churning child said it had done, over all its lives."""

    appended: set[str] = field(default_factory=set)
    compacted: set[str] = field(default_factory=set)
    #: Markers of compactions the child was inside when it was killed.
    in_flight: list[str] = field(default_factory=list)


def lines_of(child: subprocess.Popen[str]) -> queue.Queue[str | None]:
    """The child's stdout lines, read by a thread (None at the end)."""
    lines: queue.Queue[str | None] = queue.Queue()

    def pump() -> None:
        assert child.stdout is not None
        for line in child.stdout:
            if line.endswith("\n"):  # a line cut by the kill was not reported
                lines.put(line.strip())
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    return lines


def live_once(path: Path, reports: Reports, rng: random.Random, mid_compaction: bool) -> bool:
    """Start the child, kill it (at a random moment, or just as a compaction starts); whether
    the kill came while a compaction had started."""
    child = spawn("churn", str(path), "crash")
    lines = lines_of(child)
    assert lines.get(timeout=30) == "ready", child.stderr.read() if child.stderr else ""
    deadline = time.monotonic() + rng.uniform(0.0, 0.25)
    compacting: str | None = None
    started_compaction = False
    while True:
        timeout = 30.0 if mid_compaction else max(deadline - time.monotonic(), 0.0)
        try:
            line = lines.get(timeout=timeout)
        except queue.Empty:
            break
        assert line is not None, child.stderr.read() if child.stderr else "child exited"
        verb, _, entry_id = line.partition(" ")
        if verb == "appended":
            reports.appended.add(entry_id)
        elif verb == "compacted":
            reports.compacted.add(entry_id)
            compacting = None
        elif verb == "compacting":
            compacting = entry_id
            started_compaction = True
            if mid_compaction:
                time.sleep(rng.uniform(0.0, 0.004))
                break
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)
    while (line := lines.get(timeout=30)) is not None:  # what it said before it died
        verb, _, entry_id = line.partition(" ")
        if verb == "appended":
            reports.appended.add(entry_id)
        elif verb == "compacted":
            reports.compacted.add(entry_id)
            compacting = None if entry_id == compacting else compacting
    if compacting is not None:
        reports.in_flight.append(compacting)
    return started_compaction


async def check_file(path: Path, reports: Reports) -> None:
    """The file opens (through the store's own open path too), is intact, holds every
    reported write, and every compaction in it is whole."""
    assert integrity(path) == "ok"
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT id, kind, meta, subsumed FROM entries").fetchall()
    db.close()
    stored = {entry_id for entry_id, *_ in rows}
    lost = reports.appended - stored
    assert not lost, f"{len(lost)} reported appends are missing"
    assert reports.compacted <= stored, "a reported compaction is missing"
    subsumed = {entry_id for entry_id, _, _, flag in rows if flag}
    claimed: set[str] = set()
    for entry_id, kind, meta, _ in rows:
        if kind == "compaction":
            folds = set(json.loads(meta)["subsumes"])
            assert folds <= subsumed, f"compaction {entry_id} is half applied"
            claimed |= folds
    assert subsumed == claimed, "entries are flagged subsumed by no compaction"
    store = SqliteStore(path)
    try:
        context = await store.context("crash")
    finally:
        await store.aclose()
    assert {e.id for e in context} == stored - subsumed
    stamps = [e.created_at for e in context]
    assert stamps == sorted(stamps)


async def test_sigkill_at_random_points_loses_nothing_reported(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    seed = int.from_bytes(os.urandom(4))
    print(f"random seed {seed}")
    rng = random.Random(seed)
    reports = Reports()
    lives = 24
    for life in range(lives):
        appended_before = len(reports.appended)
        at_compaction = live_once(path, reports, rng, mid_compaction=life % 2 == 1)
        if life % 2 == 1:  # this life was killed as a compaction started: it wrote first
            assert at_compaction and len(reports.appended) > appended_before, life
        await check_file(path, reports)
    store = SqliteStore(path)
    try:
        history = await store.history("crash")
    finally:
        await store.aclose()
    applied = sum(1 for marker in reports.in_flight if marker in {r.entry.id for r in history})
    print(
        f"{lives} kills, {len(reports.appended)} appends, {len(reports.compacted)} compactions, "
        f"{len(reports.in_flight)} killed mid-compaction ({applied} of those had committed)"
    )
    # the kills hit real work: many appends, and compactions in flight (issue 12, item 18)
    assert len(reports.appended) >= 40 * (lives // 2)  # each compaction follows 40 appends
    assert reports.in_flight, "no kill landed inside a compaction"
