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
        run_cli(tmp_path, "run", "--new", "-s", session, f"hello from {session}", check=True)

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
    assert ids(run_cli(project, "sessions", "list", "--json", check=True)) == ["newer", "older"]
    listed = run_cli(project, "sessions", "list", "--all", "--json", check=True)
    assert ids(listed) == [RECORD, "newer", "older"]
    assert RECORD not in run_cli(project, "sessions", "list", check=True).stdout
    shown = run_cli(project, "sessions", "show", "--last", check=True)
    assert "session newer" in shown.stderr and "hello from newer" in shown.stdout
    pruned = run_cli(project, "sessions", "prune", "--keep-last", "1", "--json", check=True)
    assert json.loads(pruned.stdout)["deleted"] == ["older"]  # the record took no place
    ran = run_cli(project, "run", "--last", "again", check=True)
    assert "session: newer" in ran.stderr
    kept = run_cli(project, "sessions", "list", "--all", "--json", check=True)
    assert ids(kept) == ["newer", RECORD]
