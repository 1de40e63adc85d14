"""Two processes remember at the same time into one folder: nothing is lost, and each process
finds the other's memories through the shared index without rebuilding it."""

from __future__ import annotations

import sys
from pathlib import Path

from agentframe_memory.bank import MemoryBank

from agentframe_core.testing import Child, start_together

WORKERS = Path(__file__).with_name("workers.py")


def test_two_processes_remember_at_once(tmp_path: Path) -> None:
    folder, count = tmp_path / "user", 60
    start_together([sys.executable, str(WORKERS), str(folder), name, str(count)] for name in "ab")

    bank = MemoryBank(folder)
    try:
        titles = sorted(m.title for m in bank.all())
        assert titles == sorted(f"{w} fact {n}" for w in "ab" for n in range(count))
        assert len(bank) == 2 * count and bank.problems == {}
        for w in "ab":
            (hit, _), *_ = bank.search(f"zq{w}x{count - 1}", 1)
            assert hit == f"facts/{w}-fact-{count - 1}"
    finally:
        bank.close()


def test_a_writer_killed_with_sigkill_loses_nothing_it_reported(tmp_path: Path) -> None:
    folder = tmp_path / "user"
    with Child([sys.executable, str(WORKERS), str(folder), "k", "-1"]) as worker:
        saved = [line for line in (worker.line(timeout=60) for _ in range(25)) if line]
        worker.kill()
    assert len(saved) == 25, worker.stderr()
    bank = MemoryBank(folder)
    try:
        files = {f"{p.parent.name}/{p.stem}" for p in bank.files()}
        assert set(saved) <= files and bank.problems == {}
        assert len(bank) == len(files)  # whatever the kill interrupted, the index matches
        for memory_id in saved:
            n = memory_id.rsplit("-", 1)[1]
            assert bank.search(f"zqkx{n}", 1)[0][0] == memory_id
    finally:
        bank.close()


def test_a_file_written_by_a_killed_process_is_indexed_on_open(tmp_path: Path) -> None:
    """The file is the truth: a memory whose index row never got committed is found."""
    bank = MemoryBank(tmp_path / "user")
    bank.remember("First", "alpha bravo", "facts")
    bank.close()
    (tmp_path / "user" / "facts" / "orphan.md").write_text(
        "---\ntitle: Orphan\n---\nwritten, then the writer was killed: charlie delta\n"
    )
    again = MemoryBank(tmp_path / "user")
    try:
        assert again.search("charlie delta", 1)[0][0] == "facts/orphan"
    finally:
        again.close()
