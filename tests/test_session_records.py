"""Sessions whose id starts with `~` are plugins' records (agentframe serve's remembered
Responses, A2A tasks, conversation digests), not conversations: `sessions list` hides them
unless `--all`, `--last` never picks one, and `prune --keep-last` does not count them."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path

import pytest

from agentframe_core import Entry, EntryKind, PluginHost, load_config, sessions_to_prune
from agentframe_core.testing import run_cli

RECORD = "~serve.response.local.resp_1"


def test_keep_last_counts_conversations_and_drops_records_older_than_those_kept() -> None:
    newest_first = [("~new", 5), ("a", 4), ("~mid", 3), ("b", 2), ("~old", 1)]
    assert sessions_to_prune(newest_first, keep_last=1) == ["b", "~mid", "~old"]
    assert sessions_to_prune(newest_first, keep_last=2) == []  # records never take a place
    assert sessions_to_prune(newest_first, keep_last=0) == sorted(s for s, _ in newest_first)


def agentframe(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = run_cli(cwd, *args, timeout=120)
    assert done.returncode == 0, done.stderr
    return done


def ids(done: subprocess.CompletedProcess[str]) -> list[str]:
    return [row["id"] for row in json.loads(done.stdout)]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """Two conversations, then a record written after them (the newest session)."""
    config = tmp_path / "agentframe.yaml"
    config.write_text(
        "adapter: {use: scripted, cycle: true, replies: [Noted.]}\n"
        "store: {use: sqlite, path: sessions.db}\n"
    )
    for session in ("older", "newer"):
        agentframe(tmp_path, "run", "--new", "-s", session, f"hello from {session}")

    async def write_record() -> None:
        store = load_config(PluginHost(), config).store.build()
        try:
            entry = Entry(kind=EntryKind.NOTIFICATION, tag="serve-response", meta={"value": {}})
            await store.append(RECORD, entry)
        finally:
            await store.aclose()

    asyncio.run(write_record())
    return tmp_path


def test_list_last_and_prune_leave_records_alone(project: Path) -> None:
    assert ids(agentframe(project, "sessions", "list", "--json")) == ["newer", "older"]
    listed = agentframe(project, "sessions", "list", "--all", "--json")
    assert ids(listed) == [RECORD, "newer", "older"]
    assert RECORD not in agentframe(project, "sessions", "list").stdout
    shown = agentframe(project, "sessions", "show", "--last")
    assert "session newer" in shown.stderr and "hello from newer" in shown.stdout
    pruned = agentframe(project, "sessions", "prune", "--keep-last", "1", "--json")
    assert json.loads(pruned.stdout)["deleted"] == ["older"]  # the record took no place
    ran = agentframe(project, "run", "--last", "again")
    assert "session: newer" in ran.stderr
    assert ids(agentframe(project, "sessions", "list", "--all", "--json")) == ["newer", RECORD]
