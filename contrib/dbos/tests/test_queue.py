"""Runs queued on one PostgreSQL, taken by two workers at once: every run completes exactly
once (one user message and one answer in its session), the work is shared, and three runs
of one session take whole turns one after another."""

from __future__ import annotations

import asyncio
import os
import select
import subprocess
import sys
import time
from pathlib import Path

import psycopg
from agentframe_store_postgres import PostgresStore
from dbos import DBOSClient

AGENTFRAME = Path(sys.executable).with_name("agentframe")
RUNS = 24
#: One session per run, and three runs on one shared session (run one after another).
SESSIONS = [f"s{n}" for n in range(RUNS)] + ["shared"] * 3


def test_two_workers_complete_every_queued_run_exactly_once(
    tmp_path: Path, postgres_dsn: str
) -> None:
    name = f"q_{os.getpid()}_{time.monotonic_ns()}"
    with psycopg.connect(postgres_dsn, autocommit=True) as db:
        db.execute(f"CREATE DATABASE {name}".encode())
    url = postgres_dsn.replace("/postgres", f"/{name}")
    cfg = tmp_path / "agentframe.yaml"
    cfg.write_text(
        "adapter: {use: scripted, replies: [{content: answered, delay: 0.2}], cycle: true}\n"
        f"store: {{use: postgres, dsn: '{postgres_dsn}', schema: {name}}}\n"
    )
    env = {**os.environ, "AGENTFRAME_DBOS_URL": url, "HOME": str(tmp_path)}
    command = [AGENTFRAME, "--config", cfg, "worker", "-q", "q", "--worker-concurrency", "4"]
    workers = [
        subprocess.Popen(
            [*command, "--poll-interval", "0.1", "--executor-id", f"w{n}"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(2)
    ]
    try:
        for worker in workers:
            _wait_until_serving(worker)
        client = DBOSClient(system_database_url=url)
        try:
            ids = [
                client.enqueue(
                    {
                        "queue_name": "q",
                        "workflow_name": "agentframe_run",
                        "queue_partition_key": session,
                    },
                    str(cfg),
                    None,
                    session,
                    f"question {n}",
                ).get_workflow_id()
                for n, session in enumerate(SESSIONS)
            ]
            results = [client.retrieve_workflow(i).get_result() for i in ids]
            executors = {client.retrieve_workflow(i).get_status().executor_id for i in ids}
        finally:
            client.destroy()
    finally:
        for worker in workers:
            worker.terminate()
            worker.wait(30)
    assert [r["reply"] for r in results] == ["answered"] * len(SESSIONS)
    assert executors == {"w0", "w1"}, executors  # both workers took runs
    sessions = asyncio.run(_sessions(postgres_dsn, name))
    shared = sessions.pop("shared")
    assert sessions == {f"s{n}": [f"question {n}", "answered"] for n in range(RUNS)}
    # whole turns, one after another: each run saw the one before it
    assert shared[1::2] == ["answered"] * 3
    assert sorted(shared[0::2]) == [f"question {n}" for n in range(RUNS, RUNS + 3)]


def _wait_until_serving(worker: subprocess.Popen[str]) -> None:
    """Until the worker says it serves its queue: DBOS has then migrated the system database.
    (A client that only waited for the tables to exist could enqueue between two migrations,
    into a table that lacked a later column: it did under load.)"""
    assert worker.stderr is not None
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        ready, _, _ = select.select([worker.stderr], [], [], 1)
        line = worker.stderr.readline() if ready else ""
        if " on queue " in line:
            return
        assert worker.poll() is None, f"the worker exited: {line}{worker.stderr.read()}"
    raise AssertionError("the worker did not start serving within 120 s")


async def _sessions(dsn: str, schema: str) -> dict[str, list[str]]:
    store = PostgresStore(dsn, schema=schema)
    try:
        return {
            info.id: [e.content for e in await store.context(info.id)]
            for info in await store.sessions()
        }
    finally:
        await store.aclose()
