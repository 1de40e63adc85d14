"""A durable run in its third tool call loses its worker to SIGKILL; a second worker finishes
it (restarted under the same executor id on SQLite; another id taking the dead one's runs
over on PostgreSQL): no completed tool call runs again, no model call is made twice, and
the session's history is whole. DBOS on SQLite with the SQLite store, and DBOS on PostgreSQL
with the PostgreSQL store."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from agentframe_adapter_openai.testing import Action, ScriptedServer

from agentframe_core import PluginHost, build_stack, load_config
from agentframe_core.testing import check_turns_well_formed, eventually, run_cli

HERE = Path(__file__).parent


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as running:
        calls = [{"name": "step", "arguments": {"n": n}} for n in range(3)]
        running.push(*(Action.reply(tool_calls=[call]) for call in calls))
        running.push(Action.reply("All three steps are done."))
        yield running


def _env(tmp_path: Path, url: str, extra: dict[str, str]) -> dict[str, str]:
    return {
        "HOME": str(tmp_path),
        "PYTHONPATH": str(HERE),
        "AGENTFRAME_TEST_COUNTER": str(tmp_path / "counter.txt"),
        "AGENTFRAME_DBOS_URL": url,
        **extra,
    }


def _said(path: Path, line: str, worker: subprocess.Popen[str]) -> bool:
    """Whether the counting tool wrote `line`; fails at once if the worker died."""
    if worker.poll() is not None:
        assert worker.stderr is not None
        pytest.fail(f"the worker died: {worker.stderr.read()[-3000:]}")
    return path.exists() and line in path.read_text().splitlines()


def _crash_and_recover(
    dbos_worker: Callable[..., subprocess.Popen[str]],
    tmp_path: Path,
    store: str,
    url: str,
    extra: dict[str, str],
    *second_options: str,
) -> None:
    """The first worker runs as executor 'local'; the second worker gets `second_options`."""
    cfg = tmp_path / "agentframe.yaml"
    cfg.write_text(
        f"adapter: {{use: openai, base_url: '{extra['BASE_URL']}', model: scripted-model}}\n"
        f"store: {store}\n"
        "tools: [{use: functions, import: ['countingtools:step']}]\n"
    )
    env = _env(tmp_path, url, extra)
    counter = tmp_path / "counter.txt"
    first = dbos_worker(cfg, env, "--queue", "q")  # ready: it has made the system database
    try:
        submitted = run_cli(
            tmp_path,
            "--config",
            str(cfg),
            "submit",
            "--session",
            "S",
            "-q",
            "q",
            "Do the steps.",
            env=env,
            timeout=120,
        )
        assert submitted.returncode == 0, submitted.stderr
        workflow_id = submitted.stdout.strip()
        # in its third tool call
        eventually(lambda: _said(counter, "start 2", first), 120, what="the third tool call")
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait(30)
    assert "done 2" not in counter.read_text().splitlines()
    second = dbos_worker(cfg, env, "--queue", "q", *second_options)
    try:
        done = run_cli(
            tmp_path, "--config", str(cfg), "result", workflow_id, "--json", env=env, timeout=120
        )
        assert done.returncode == 0, done.stderr
        status = run_cli(tmp_path, "--config", str(cfg), "status", workflow_id, env=env)
        assert "SUCCESS" in status.stdout, status.stdout
    finally:
        second.terminate()
        second.wait(30)
    lines = counter.read_text().splitlines()
    for n in (0, 1):
        assert lines.count(f"start {n}") == 1, f"completed tool call {n} ran again: {lines}"
    assert lines.count("done 2") == 1, lines  # the call cut short ran again, to its end
    entries = asyncio.run(_context(cfg))
    check_turns_well_formed(entries, {"Do the steps.": "All three steps are done."})
    assert [e.kind.value for e in entries].count("tool_result") == 3


async def _context(cfg: Path) -> list[object]:
    host = PluginHost()
    async with build_stack(load_config(host, cfg), host) as stack:
        return list(await stack.store.context("S"))


@pytest.fixture(autouse=True)
def _tools_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    """The config names `countingtools:step`; reading it here imports the module too."""
    monkeypatch.syspath_prepend(str(HERE))


def test_a_run_killed_in_its_third_tool_call_finishes_on_sqlite(
    tmp_path: Path, server: ScriptedServer, dbos_worker: Callable[..., subprocess.Popen[str]]
) -> None:
    url = f"sqlite:///{tmp_path / 'dbos.sqlite'}"
    store = f"{{use: sqlite, path: {tmp_path / 'sessions.db'}}}"
    _crash_and_recover(dbos_worker, tmp_path, store, url, {"BASE_URL": server.url})
    assert len(server.requests) == 4  # no model call was made twice


def test_a_run_killed_in_its_third_tool_call_finishes_on_postgres(
    tmp_path: Path,
    server: ScriptedServer,
    postgres_dsn: str,
    dbos_worker: Callable[..., subprocess.Popen[str]],
) -> None:
    database = f"dbos_{os.getpid()}_{time.monotonic_ns()}"
    import psycopg

    with psycopg.connect(postgres_dsn, autocommit=True) as db:
        db.execute(f"CREATE DATABASE {database}".encode())
    url = postgres_dsn.replace("/postgres", f"/{database}")
    store = f"{{use: postgres, dsn: '{postgres_dsn}', schema: {database}}}"
    # a live worker of another id takes the dead worker's run over
    take_over = ("--executor-id", "second", "--recover-executor", "local")
    _crash_and_recover(dbos_worker, tmp_path, store, url, {"BASE_URL": server.url}, *take_over)
    assert len(server.requests) == 4
