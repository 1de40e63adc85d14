"""Claims: racing processes never both win a task, whether claiming afresh or taking over the
claims of a dead drainer; a live drainer's claims are never taken."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from agentframe_agentfs import Folder
from agentframe_agentfs.claims import read_claim, take_over_if_stale, try_claim
from agentframe_agentfs.contract import task_id
from agentframe_agentfs.liveness import Heartbeat
from agentfs_procs import environment

from agentframe_core.testing import eventually

RACER = """
import json, sys, time
from pathlib import Path
from agentframe_agentfs import Folder
from agentframe_agentfs.claims import take_over_if_stale, try_claim
root, name, mode, go = Path(sys.argv[1]), sys.argv[2], sys.argv[3], Path(sys.argv[4])
folder = Folder(root)
ids = json.loads((root / "ids.json").read_text())
(root / f"ready-{name}").touch()
while not go.exists():
    time.sleep(0.001)
won = []
for tid in ids:
    paths = folder.paths(tid)
    ok = try_claim(paths, name) if mode == "fresh" else take_over_if_stale(folder, paths, name, 5.0)
    if ok:
        won.append(tid)
(root / f"won-{name}.json").write_text(json.dumps(won))
"""


def race(tmp_path: Path, mode: str, ids: list[str], racers: int = 4) -> list[list[str]]:
    (tmp_path / "ids.json").write_text(json.dumps(ids))
    go = tmp_path / "go"
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", RACER, str(tmp_path), f"racer{i}", mode, str(go)],
            env=environment(tmp_path / "cache"),
        )
        for i in range(racers)
    ]
    up = [tmp_path / f"ready-racer{i}" for i in range(racers)]
    eventually(lambda: all(p.exists() for p in up), 60, what="every racer to spin on `go`")
    go.touch()
    for process in processes:
        assert process.wait(60) == 0
    return [json.loads((tmp_path / f"won-racer{i}.json").read_text()) for i in range(racers)]


def ids(n: int) -> list[str]:
    return [task_id("s", f"u{i}", "race") for i in range(n)]


def test_racing_processes_claim_each_task_once(tmp_path: Path) -> None:
    Folder(tmp_path).ensure()
    tasks = ids(300)
    won = race(tmp_path, "fresh", tasks)
    claimed = [tid for wins in won for tid in wins]
    assert sorted(claimed) == sorted(tasks)  # every task once: none twice, none lost
    for i, wins in enumerate(won):
        for tid in wins:
            claim = read_claim(Folder(tmp_path).paths(tid))
            assert claim is not None and claim.drainer == f"racer{i}"


def test_racing_take_overs_of_a_dead_drainer_win_each_task_once(tmp_path: Path) -> None:
    folder = Folder(tmp_path)
    folder.ensure()
    tasks = ids(200)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    for tid in tasks:  # claims of a process that no longer exists
        record = {"drainer": "gone", "pid": dead.pid, "host": os.uname().nodename}
        folder.paths(tid).claim.write_text(json.dumps(record))
    won = race(tmp_path, "takeover", tasks)
    claimed = [tid for wins in won for tid in wins]
    assert sorted(claimed) == sorted(tasks)


def test_a_live_drainers_claim_is_not_taken_over(tmp_path: Path) -> None:
    folder = Folder(tmp_path)
    folder.ensure()
    paths = folder.paths(ids(1)[0])
    Heartbeat(folder, "alive", {}).beat()
    record = {"drainer": "alive", "pid": 1, "host": "elsewhere"}
    paths.claim.write_text(json.dumps(record))
    assert not try_claim(paths, "me")
    assert not take_over_if_stale(folder, paths, "me", 5.0)
    # once its heartbeat is older than the grace, it is
    old = time.time() - 60
    os.utime(folder.heartbeats / "alive.json", (old, old))
    assert take_over_if_stale(folder, paths, "me", 5.0)
    claim = read_claim(paths)
    assert claim is not None and claim.drainer == "me"


def test_a_claim_with_no_known_owner_is_kept_for_the_grace(tmp_path: Path) -> None:
    folder = Folder(tmp_path)
    folder.ensure()
    paths = folder.paths(ids(1)[0])
    paths.claim.write_text("")  # being written, or written by someone with no heartbeat
    assert not take_over_if_stale(folder, paths, "me", 5.0)
    old = time.time() - 60
    os.utime(paths.claim, (old, old))
    assert take_over_if_stale(folder, paths, "me", 5.0)


def test_a_crafted_drainer_name_cannot_point_at_a_fresh_file_elsewhere(tmp_path: Path) -> None:
    """The heartbeat path is built from the claim's `drainer`: a name that leaves the
    heartbeats folder (here at a file kept fresh) is no known owner (issue 12, item 13)."""
    folder = Folder(tmp_path)
    folder.ensure()
    paths = folder.paths(ids(1)[0])
    evergreen = folder.heartbeats.parent / "evergreen.json"
    evergreen.write_text("{}")  # fresh, and outside the heartbeats folder
    for crafted in ("../evergreen", "/" + str(evergreen.with_suffix("")), ".", "a\x00b"):
        record = {"drainer": crafted, "pid": 1, "host": "elsewhere"}
        paths.claim.write_text(json.dumps(record))
        old = time.time() - 60
        os.utime(paths.claim, (old, old))
        claim = read_claim(paths)
        assert claim is not None and claim.drainer is None, crafted
        assert take_over_if_stale(folder, paths, "me", 5.0), crafted
        paths.claim.unlink()
