"""Durable runs on DBOS queues: throughput on 1, 2 and 4 worker processes sharing one PostgreSQL.

Each run is one model call to the scripted adapter, which sleeps 200 ms (a stand-in for a model
server), on its own session in the PostgreSQL store. For each worker count: a fresh database,
the workers started and ready, RUNS runs enqueued at once, the time until every result is in.
Prints runs/s and the ratio to one worker, and checks that every run completed exactly once
(its session holds its one message and one answer).

    python bench/dbos_scale.py [--runs 200] [--workers 1,2,4] [--worker-concurrency 1]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psycopg
from agentframe_store_postgres import PostgresStore
from agentframe_store_postgres.testing import TempServer, postgres_binaries
from dbos import DBOSClient

AGENTFRAME = Path(sys.executable).with_name("agentframe")


def start_workers(count: int, cfg: Path, url: str, concurrency: int) -> list[subprocess.Popen[str]]:
    env = {**os.environ, "AGENTFRAME_DBOS_URL": url}
    command = [AGENTFRAME, "--config", cfg, "worker", "-q", "bench", "--poll-interval", "0.05"]
    workers = [
        subprocess.Popen(
            [*command, "--worker-concurrency", str(concurrency), "--executor-id", f"w{n}"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(count)
    ]
    for worker in workers:  # each says "worker ID on queue ..." once launched
        assert worker.stderr is not None
        line = worker.stderr.readline()
        assert line.startswith("worker "), line
    return workers


def one_round(dsn: str, workers: int, runs: int, concurrency: int, folder: Path) -> float:
    """Runs/s with `workers` worker processes; asserts every run completed exactly once."""
    name = f"scale_{workers}"
    with psycopg.connect(dsn, autocommit=True) as db:
        db.execute(f"CREATE DATABASE {name}".encode())
    url = dsn.replace("/postgres", f"/{name}")
    cfg = folder / f"{name}.yaml"
    cfg.write_text(
        "adapter: {use: scripted, replies: [{content: answered, delay: 0.2}], cycle: true}\n"
        f"store: {{use: postgres, dsn: '{dsn}', schema: {name}}}\n"
    )
    started = start_workers(workers, cfg, url, concurrency)
    try:
        client = DBOSClient(system_database_url=url)
        try:
            t0 = time.perf_counter()
            handles = [
                client.enqueue(
                    {
                        "queue_name": "bench",
                        "workflow_name": "agentframe_run",
                        "queue_partition_key": f"s{n}",
                    },
                    str(cfg),
                    None,
                    f"s{n}",
                    f"question {n}",
                )
                for n in range(runs)
            ]
            replies = [handle.get_result(polling_interval_sec=0.05) for handle in handles]
            took = time.perf_counter() - t0
        finally:
            client.destroy()
    finally:
        for worker in started:
            worker.terminate()
            worker.wait(30)
    assert all(r["reply"] == "answered" for r in replies)
    sessions = asyncio.run(contents(dsn, name))
    expected = {f"s{n}": [f"question {n}", "answered"] for n in range(runs)}
    assert sessions == expected, "a run was lost or completed twice"
    return runs / took


async def contents(dsn: str, schema: str) -> dict[str, list[str]]:
    store = PostgresStore(dsn, schema=schema)
    try:
        return {
            info.id: [e.content for e in await store.context(info.id)]
            for info in await store.sessions()
        }
    finally:
        await store.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--workers", default="1,2,4")
    parser.add_argument("--worker-concurrency", type=int, default=1)
    args = parser.parse_args()
    binaries = postgres_binaries()
    if binaries is None:
        sys.exit("no PostgreSQL binaries (initdb, pg_ctl, postgres): nothing to measure")
    server = TempServer(binaries).start()
    try:
        with tempfile.TemporaryDirectory() as folder:
            rates: dict[int, float] = {}
            for count in (int(n) for n in args.workers.split(",")):
                rates[count] = one_round(
                    server.dsn, count, args.runs, args.worker_concurrency, Path(folder)
                )
                base = rates[min(rates)]
                print(
                    f"{count} worker(s) x {args.worker_concurrency} at once: "
                    f"{args.runs} runs, {rates[count]:6.2f} runs/s, "
                    f"{rates[count] / base:4.2f}x one worker; each run completed exactly once",
                    flush=True,
                )
    finally:
        server.stop()


if __name__ == "__main__":
    main()
