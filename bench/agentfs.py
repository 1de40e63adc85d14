"""Agent mode round trips: the `agentfs` adapter against an instant drainer in another process,
next to the design it comes from (a skill scanning the inbox in waves 2 s apart, a pipeline
polling for the sentinel on a fixed tick), all in one run.

Round trip = the adapter writes the envelope -> the drainer claims it, answers, writes the
answer and the sentinel -> the adapter has read the answer. The drainer answers at once
(the kernel's `scripted` adapter), so what is measured is the filesystem protocol alone.

- agentfs/inotify: the adapter and `agentframe agent-mode serve` as shipped;
- agentfs/polling: both sides without inotify (adaptive polling from 1 ms), as on a system
  without it;
- baseline/waves: a drainer that scans every `--wave` seconds and an adapter that looks for the
  sentinel every `--baseline-poll` seconds.

    python bench/agentfs.py [--tasks 200] [--rounds 10] [--baseline-tasks 8]

Needs the plugin installed: pip install -e plugins/adapters/agentfs
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from agentframe_agentfs import AgentFSAdapter, AgentFSOptions, Folder
from agentframe_agentfs.contract import atomic_write, build_task
from agentframe_agentfs.watch import watch

from agentframe_core import CompletionRequest, Message

CONCURRENCY = 16

POLLING_DRAINER = """
import asyncio, sys
from pathlib import Path
from agentframe_agentfs import Drainer, DrainerSettings, Folder
from agentframe_core.testing import ScriptedAdapter
settings = DrainerSettings(workers=16, poll_interval=0.25, heartbeat_interval=1.0, inotify=False)
drainer = Drainer(Folder(Path(sys.argv[1])), ScriptedAdapter(["ok"], cycle=True), settings)
stop = asyncio.Event()
async def main():
    import signal
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    await drainer.run(stop)
asyncio.run(main())
"""

WAVE_DRAINER = """
import json, os, sys, time
from pathlib import Path
root, wave = Path(sys.argv[1]), float(sys.argv[2])
inbox, outbox = root / "agent_inbox", root / "agent_outbox"
def write(path, data):
    tmp = path.with_name(path.name + ".tmp"); tmp.write_bytes(data); os.rename(tmp, path)
while True:
    for task in inbox.glob("*.task.json"):
        tid = task.name[: -len(".task.json")]
        if not (outbox / f"{tid}.done").exists():
            answer = json.dumps({"task_id": tid, "answer": "ok"}).encode()
            write(outbox / f"{tid}.answer.json", answer)
            write(outbox / f"{tid}.done", b"")
    time.sleep(wave)
"""


def request(i: int, tag: str) -> CompletionRequest:
    return CompletionRequest(
        [Message("system", "Answer briefly."), Message("user", f"question {i} ({tag})")],
        metadata={"context_label": f"bench:{tag}:{i}"},
    )


def start(command: list[str], root: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "AGENTFRAME_CACHE_DIR": str(root / "cache")}
    return subprocess.Popen(command, env=env, stderr=subprocess.DEVNULL)


async def uses_inotify(folder: Path) -> bool:
    """Whether a watch on `folder` (as the adapter sets one up, by default) gets inotify."""
    async with watch(folder, lambda *_: False, 1.0) as changes:
        return changes.inotify


def wait_for_heartbeat(folder: Path) -> None:
    deadline = time.monotonic() + 60
    while not any((folder / "agent_heartbeat").glob("*.json")):
        if time.monotonic() > deadline:
            raise SystemExit(f"no drainer heartbeat in {folder} after 60 s")
        time.sleep(0.01)


class BaselineAdapter:
    """The original waiting: write the envelope, look for the sentinel every `poll` seconds."""

    def __init__(self, folder: Path, poll: float) -> None:
        self.folder, self.poll = Folder(folder), poll
        self.folder.ensure()

    async def complete(self, req: CompletionRequest) -> str:
        envelope = build_task(
            req.messages,
            context_label=req.metadata["context_label"],
            max_tokens=4096,
            timeout_seconds=1800,
        )
        paths = self.folder.paths(envelope["task_id"])
        atomic_write(paths.task, json.dumps(envelope).encode())
        while not paths.done.exists():
            await asyncio.sleep(self.poll)
        return str(json.loads(paths.answer.read_text())["answer"])


Ask = Callable[[CompletionRequest], Awaitable[object]]


async def sequential(ask: Ask, n: int, tag: str) -> list[float]:
    seconds = []
    for i in range(n):
        started = time.perf_counter()
        await ask(request(i, tag))
        seconds.append(time.perf_counter() - started)
    return seconds


async def concurrent(ask: Ask, rounds: int, tag: str) -> tuple[float, list[float]]:
    """`rounds` batches of 16 concurrent tasks: tasks per second, and each task's latency."""
    latencies: list[float] = []

    async def one(i: int) -> None:
        started = time.perf_counter()
        await ask(request(i, tag))
        latencies.append(time.perf_counter() - started)

    started = time.perf_counter()
    for r in range(rounds):
        await asyncio.gather(*(one(r * CONCURRENCY + k) for k in range(CONCURRENCY)))
    return rounds * CONCURRENCY / (time.perf_counter() - started), latencies


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] * 1000


async def measure(ask: Ask, tasks: int, rounds: int, tag: str) -> dict[str, float]:
    await sequential(ask, 5, f"{tag}-warmup")
    seq = await sequential(ask, tasks, tag)
    throughput, conc = await concurrent(ask, rounds, f"{tag}-conc")
    return {
        "tasks": tasks,
        "p50": pct(seq, 0.5),
        "p99": pct(seq, 0.99),
        "mean": statistics.fmean(seq) * 1000,
        "throughput": throughput,
        "conc_p50": pct(conc, 0.5),
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=200, help="sequential round trips")
    parser.add_argument("--rounds", type=int, default=10, help="rounds of 16 concurrent tasks")
    parser.add_argument("--baseline-tasks", type=int, default=8)
    parser.add_argument("--baseline-rounds", type=int, default=2)
    parser.add_argument("--wave", type=float, default=2.0, help="baseline wave period (s)")
    parser.add_argument("--baseline-poll", type=float, default=0.5, help="baseline tick (s)")
    args = parser.parse_args()

    root = Path(tempfile.mkdtemp(prefix="agentfs-bench-"))
    config = root / "drainer.yaml"
    config.write_text("adapter: {use: scripted, cycle: true, replies: [ok]}\n")
    results: dict[str, dict[str, float]] = {}
    processes: list[subprocess.Popen[bytes]] = []
    try:
        folder = root / "inotify"
        processes.append(
            start(
                [sys.executable, "-m", "agentframe_core", "agent-mode", "serve",
                 "--config", str(config), "--dir", str(folder), "--workers", "16"],
                root,
            )
        )  # fmt: skip
        wait_for_heartbeat(folder)
        adapter = AgentFSAdapter(AgentFSOptions(dir=folder))
        if not await uses_inotify(folder):  # the figures would be polling's, mislabelled
            sys.exit("inotify is not available here: agentfs/inotify cannot be measured")
        results["agentfs/inotify"] = await measure(adapter.complete, args.tasks, args.rounds, "i")

        folder = root / "polling"
        processes.append(start([sys.executable, "-c", POLLING_DRAINER, str(folder)], root))
        wait_for_heartbeat(folder)
        adapter = AgentFSAdapter(AgentFSOptions(dir=folder), inotify=False)
        results["agentfs/polling"] = await measure(adapter.complete, args.tasks, args.rounds, "p")

        folder = root / "waves"
        baseline = BaselineAdapter(folder, args.baseline_poll)
        processes.append(
            start([sys.executable, "-c", WAVE_DRAINER, str(folder), str(args.wave)], root)
        )
        results["baseline/waves"] = await measure(
            baseline.complete, args.baseline_tasks, args.baseline_rounds, "w"
        )
    finally:
        for process in processes:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
        shutil.rmtree(root, ignore_errors=True)

    print(
        f"round trip with an instant drainer (ms); throughput with {CONCURRENCY} concurrent tasks"
    )
    print(f"{'':18}{'tasks':>6}{'p50':>10}{'p99':>10}{'mean':>10}{'tasks/s':>10}{'conc p50':>10}")
    for name, r in results.items():
        print(
            f"{name:18}{r['tasks']:>6.0f}{r['p50']:>10.2f}{r['p99']:>10.2f}{r['mean']:>10.2f}"
            f"{r['throughput']:>10.1f}{r['conc_p50']:>10.2f}"
        )
    random_arrival = (args.wave / 2 + args.baseline_poll / 2) * 1000
    print(
        f"baseline, expected: a caller asking again as soon as it is answered waits a whole "
        f"wave ({args.wave * 1000:.0f} ms: its next task lands just after a scan); a task "
        f"arriving at a random moment waits wave/2 + tick/2 = {random_arrival:.0f} ms; "
        f"{CONCURRENCY} concurrent tasks go at most {CONCURRENCY / args.wave:.0f} per second"
    )
    base, fast = results["baseline/waves"], results["agentfs/inotify"]
    print(
        f"agentfs/inotify vs baseline: p50 {base['p50'] / fast['p50']:.0f}x faster, "
        f"throughput {fast['throughput'] / base['throughput']:.0f}x higher"
    )


if __name__ == "__main__":
    asyncio.run(main())
