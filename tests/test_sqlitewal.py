"""`use_wal`: processes that open a new SQLite file at the same moment all get it in WAL mode.
SQLite alone fails some of them at once with "database is locked" (its busy handler does not
run for the switch): 10 of 120 children here, 6 at a time, before the retry."""

from __future__ import annotations

import sys
from pathlib import Path

from agentframe_core.testing import start_together

CHILD = """
import sqlite3, sys
from agentframe_core import use_wal
print("ready", flush=True)
sys.stdin.readline()
db = sqlite3.connect(sys.argv[1], timeout=5, isolation_level=None)
mode = use_wal(db, 5.0)
db.executescript("CREATE TABLE IF NOT EXISTS t (x); INSERT INTO t VALUES (1);")
print(mode, flush=True)
"""


def test_processes_opening_a_new_file_at_once_all_switch_it_to_wal(tmp_path: Path) -> None:
    for round_ in range(8):
        path = tmp_path / f"new-{round_}.db"
        said = start_together([sys.executable, "-c", CHILD, str(path)] for _ in range(6))
        assert said == [["wal"]] * 6, said
