"""`agentframe sessions export|import|prune|list` on a real SQLite file, through the real CLI."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

import pytest
from agentframe_store_sqlite import SqliteStore

from agentframe_core import Compaction, Entry, EntryKind, now_ns
from agentframe_core.testing import run_cli


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """Added to `run_cli`'s: a home of the test's own."""
    return {"HOME": str(tmp_path / "home")}


def config(tmp_path: Path, name: str, path: Path | None) -> Path:
    store = f"{{use: sqlite, path: {path}}}" if path else "sqlite"
    file = tmp_path / f"{name}.yaml"
    file.write_text(f"adapter: scripted\nstore: {store}\n")
    return file


async def fill(path: Path) -> None:
    """Sessions with every state an entry can be in, and entries worth round-tripping."""
    store = SqliteStore(path)
    try:
        first = Entry(kind=EntryKind.USER, content="Plan the trip\nto Lyon", origin={"tty": 3})
        await store.append("trip", first)
        call = Entry(kind=EntryKind.TOOL_CALL, content='{"q": "trains"}', tool_call_id="c1")
        await store.append("trip", call)
        result = Entry(
            kind=EntryKind.TOOL_RESULT,
            content="timetable " * 20_000,
            tool_call_id="c1",
            tool_name="search",
            meta={"chars": 200_000},
        )
        await store.append("trip", result)
        marker = Entry(kind=EntryKind.COMPACTION, content="asked for trains", tag="auto")
        await store.compact("trip", Compaction(marker, frozenset({call.id, result.id})))
        await store.enqueue("trip", Entry(kind=EntryKind.NOTIFICATION, content="build done"))
        await store.append("chat", Entry(kind=EntryKind.USER, content="¿Qué tal? \N{SNOWMAN}"))
    finally:
        await store.aclose()


async def history(path: Path) -> dict[str, list[object]]:
    store = SqliteStore(path)
    try:
        return {info.id: await store.history(info.id) for info in await store.sessions()}
    finally:
        await store.aclose()


async def test_export_then_import_recreates_the_sessions_exactly(
    tmp_path: Path, env: dict[str, str]
) -> None:
    source = tmp_path / "source.db"
    await fill(source)
    exported = run_cli(
        tmp_path, "--config", str(config(tmp_path, "source", source)), "sessions", "export", env=env
    )
    assert exported.returncode == 0, exported.stderr
    lines = exported.stdout.splitlines()
    assert len(lines) == 6 and all(json.loads(line)["entry"]["id"] for line in lines)

    dump = tmp_path / "dump.jsonl"
    to_file = run_cli(
        tmp_path,
        "--config",
        str(config(tmp_path, "source", source)),
        "sessions",
        "export",
        "-o",
        str(dump),
        env=env,
    )
    assert to_file.returncode == 0 and dump.read_text() == exported.stdout

    # Into the default store: $XDG_DATA_HOME/agentframe/sessions.db, created on first use.
    target = config(tmp_path, "target", None)
    imported = run_cli(tmp_path, "--config", str(target), "sessions", "import", str(dump), env=env)
    assert imported.returncode == 0, imported.stderr
    assert "imported 2 session(s), 6 entries" in imported.stdout
    default = tmp_path / "data" / "agentframe" / "sessions.db"
    assert await history(default) == await history(source)
    again = run_cli(tmp_path, "--config", str(target), "sessions", "export", env=env)
    assert again.stdout == exported.stdout

    listed = run_cli(tmp_path, "--config", str(target), "sessions", "list", "--json", env=env)
    titles = {info["id"]: info["title"] for info in json.loads(listed.stdout)}
    assert titles == {"trip": "Plan the trip", "chat": "¿Qué tal? \N{SNOWMAN}"}

    one = run_cli(tmp_path, "--config", str(target), "sessions", "export", "chat", env=env)
    assert [json.loads(line)["session_id"] for line in one.stdout.splitlines()] == ["chat"]
    missing = run_cli(
        tmp_path, "--config", str(target), "sessions", "export", "chat", "nope", env=env
    )
    assert missing.returncode == 1 and "no such session(s): nope" in missing.stderr


async def test_import_refuses_a_bad_file_whole(tmp_path: Path, env: dict[str, str]) -> None:
    source = tmp_path / "source.db"
    await fill(source)
    exported = run_cli(
        tmp_path, "--config", str(config(tmp_path, "source", source)), "sessions", "export", env=env
    ).stdout
    lines = exported.splitlines()
    broken = json.loads(lines[4])
    broken["entry"]["kind"] = "robot"
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([*lines[:4], json.dumps(broken), lines[5]]) + "\n")

    target_path = tmp_path / "target.db"
    target = config(tmp_path, "target", target_path)
    result = run_cli(tmp_path, "--config", str(target), "sessions", "import", str(bad), env=env)
    assert result.returncode == 1
    assert f"{bad}:5: entry.kind: Input should be" in result.stderr
    assert await history(target_path) == {}

    from_stdin = run_cli(
        tmp_path, "--config", str(target), "sessions", "import", "-", input=exported, env=env
    )
    assert from_stdin.returncode == 0, from_stdin.stderr
    before = await history(target_path)
    clash = run_cli(
        tmp_path, "--config", str(target), "sessions", "import", "-", input=exported, env=env
    )
    assert clash.returncode == 1
    assert "already in the store: chat, trip (--replace overwrites them)" in clash.stderr
    replaced = run_cli(
        tmp_path,
        "--config",
        str(target),
        "sessions",
        "import",
        "--replace",
        "-",
        input=exported,
        env=env,
    )
    assert replaced.returncode == 0
    assert await history(target_path) == before


async def test_prune_deletes_by_age_and_count_and_vacuum_shrinks_the_file(
    tmp_path: Path, env: dict[str, str]
) -> None:
    path = tmp_path / "sessions.db"
    store = SqliteStore(path)
    try:
        for sid in ("old", "big", "mid", "new"):
            content = "blob " * 400_000 if sid == "big" else sid
            await store.append(sid, Entry(kind=EntryKind.USER, content=content))
    finally:
        await store.aclose()
    forty_days = 40 * 86_400 * 10**9
    with sqlite3.connect(path) as db:
        db.execute("UPDATE sessions SET updated_at = ? WHERE id = 'old'", (now_ns() - forty_days,))
    db.close()
    cfg = config(tmp_path, "prune", path)

    dry = run_cli(
        tmp_path,
        "--config",
        str(cfg),
        "sessions",
        "prune",
        "--older-than",
        "30d",
        "--dry-run",
        "--json",
        env=env,
    )
    assert json.loads(dry.stdout) == {"deleted": ["old"], "dry_run": True, "vacuumed": False}
    assert set(await history(path)) == {"old", "big", "mid", "new"}

    aged = run_cli(
        tmp_path, "--config", str(cfg), "sessions", "prune", "--older-than", "30d", env=env
    )
    assert aged.returncode == 0 and "deleted old" in aged.stdout
    assert set(await history(path)) == {"big", "mid", "new"}

    size = path.stat().st_size
    counted = run_cli(
        tmp_path,
        "--config",
        str(cfg),
        "sessions",
        "prune",
        "--keep-last",
        "1",
        "--older-than",
        "1w",
        "--vacuum",
        env=env,
    )
    assert counted.returncode == 0, counted.stderr
    assert counted.stdout.splitlines()[-1] == "deleted 2 session(s), vacuumed"
    assert set(await history(path)) == {"new"}
    assert path.stat().st_size < size / 4
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    db.close()


def test_a_newer_file_is_reported_by_the_cli(tmp_path: Path, env: dict[str, str]) -> None:
    path = tmp_path / "sessions.db"
    asyncio.run(fill(path))
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version = 99")
    db.close()
    listed = run_cli(
        tmp_path, "--config", str(config(tmp_path, "newer", path)), "sessions", "list", env=env
    )
    assert listed.returncode == 1
    assert f"error: {path}: written by a newer agentframe-store-sqlite" in listed.stderr
    assert "Traceback" not in listed.stderr


async def test_the_session_file_and_its_wal_files_are_the_owners_only(
    tmp_path: Path, env: dict[str, str]
) -> None:
    path = tmp_path / "made-by-run.db"
    cfg = tmp_path / "run.yaml"
    cfg.write_text(
        f"adapter: {{use: scripted, replies: [Hello.]}}\nstore: {{use: sqlite, path: {path}}}\n"
    )
    ran = run_cli(tmp_path, "--config", str(cfg), "run", "hi", env=env)
    assert ran.returncode == 0, ran.stderr
    assert path.stat().st_mode & 0o777 == 0o600  # sessions hold prompts and answers
    opened = tmp_path / "open.db"
    store = SqliteStore(opened)
    try:
        await store.append("s", Entry(kind=EntryKind.USER, content="secret plans"))
        files = [opened, opened.with_name("open.db-wal"), opened.with_name("open.db-shm")]
        assert {f.name: f.stat().st_mode & 0o777 for f in files} == dict.fromkeys(
            (f.name for f in files), 0o600
        )
    finally:
        await store.aclose()
