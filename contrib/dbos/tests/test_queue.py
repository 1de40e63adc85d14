"""Runs queued on one PostgreSQL, taken by two workers at once: every run completes exactly
once (one user message and one answer in its session), the work is shared, and three runs
of one session take whole turns one after another."""

from __future__ import annotations

import asyncio
import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import psycopg
from agentframe_store_postgres import PostgresStore
from dbos import DBOSClient

RUNS = 24
#: One session per run, and three runs on one shared session (run one after another).
SESSIONS = [f"s{n}" for n in range(RUNS)] + ["shared"] * 3


def test_two_workers_complete_every_queued_run_exactly_once(
    tmp_path: Path, postgres_dsn: str, dbos_worker: Callable[..., subprocess.Popen[str]]
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
    env = {"AGENTFRAME_DBOS_URL": url, "HOME": str(tmp_path)}
    # each ready: it serves its queue, so DBOS has migrated the system database (a client
    # that only waited for the tables to exist could enqueue between two migrations, into a
    # table that lacked a later column: it did under load)
    options = ("-q", "q", "--worker-concurrency", "4")
    workers = [
        dbos_worker(cfg, env, *options, "--executor-id", f"w{n}", poll_interval=0.1)
        for n in range(2)
    ]
    try:
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


async def _sessions(dsn: str, schema: str) -> dict[str, list[str]]:
    store = PostgresStore(dsn, schema=schema)
    try:
        return {
            info.id: [e.content for e in await store.context(info.id)]
            for info in await store.sessions()
        }
    finally:
        await store.aclose()
