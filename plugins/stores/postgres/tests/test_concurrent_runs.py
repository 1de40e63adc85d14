"""Eight real `agentframe run --session S` processes on one PostgreSQL session: one turn at a
time, through the lease row.

Each process has its own scripted model (a tool call, then an answer naming the process), so
the history shows whose turn answered what. Every run must take its turn or report the turn
that answered its message, and the history must be whole turns.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from agentframe_store_postgres import PostgresStore

from agentframe_core import RunContext, Stack, VerbatimBuilder
from agentframe_core.testing import ScriptedAdapter, check_turns_well_formed

AGENTFRAME = Path(sys.executable).with_name("agentframe")
RUNS = 8


def _config(tmp_path: Path, schema: str, n: int) -> Path:
    file = tmp_path / f"run{n}.yaml"
    file.write_text(
        "adapter:\n"
        "  use: scripted\n"
        "  replies:\n"
        f"    - {{tool_calls: [{{name: basename, arguments: {{p: /runs/{n}}}}}], delay: 0.05}}\n"
        f"    - {{content: answer of run {n}, delay: 0.05}}\n"
        "  cycle: true\n"
        f"store: {{use: postgres, dsn_env: AGENTFRAME_TEST_PG, schema: {schema}, pool_max: 2}}\n"
        "tools: [{use: functions, import: ['os.path:basename']}]\n"
    )
    return file


async def test_eight_processes_on_one_session_leave_whole_turns(
    tmp_path: Path, postgres_dsn: str, schema: str, pg_store: PostgresStore
) -> None:
    env = {
        **os.environ,
        "AGENTFRAME_CACHE_DIR": str(tmp_path / "cache"),
        "HOME": str(tmp_path),
        "AGENTFRAME_TEST_PG": postgres_dsn,
    }
    await pg_store.sessions()  # the schema exists before the eight start
    runs = [
        subprocess.Popen(
            [
                AGENTFRAME,
                "--config",
                _config(tmp_path, schema, n),
                "run",
                "--json",
                "-s",
                "S",
                f"q {n}",
            ],
            env=env,
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(RUNS)
    ]
    results = []
    for run in runs:
        out, err = run.communicate(timeout=180)
        assert run.returncode == 0, (out, err)
        results.append(json.loads(out))
    assert any(not r.get("coalesced") for r in results)
    entries = await pg_store.context("S")
    check_turns_well_formed(entries, {f"q {n}": r["reply"] for n, r in enumerate(results)})
    stack = Stack(ScriptedAdapter(), pg_store, VerbatimBuilder())
    messages = await stack.context.build(RunContext("S", stack, None), "system")
    assert not any("[no result was recorded" in m.content for m in messages)
    replies = [m.content for m in messages if m.role == "assistant" and m.content]
    assert all(reply.count("answer of run") <= 1 for reply in replies), replies
