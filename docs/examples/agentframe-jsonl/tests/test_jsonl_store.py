"""The example plugin is tested the way any third-party plugin would be."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agentframe_jsonl import JsonlStore, JsonlStoreOptions
from agentframe_jsonl import plugin as jsonl_plugin

from agentframe_core import Entry, EntryKind, PluginHost, Session, build_stack, load_config
from agentframe_core.testing import StoreConformance


class TestJsonlStore(StoreConformance):
    @pytest.fixture
    def store(self, tmp_path: Path) -> JsonlStore:
        return JsonlStore(JsonlStoreOptions(dir=tmp_path / "sessions"))

    async def reopened(self, store: JsonlStore) -> JsonlStore:
        return JsonlStore(JsonlStoreOptions(dir=store.dir))

    def write_torn_tail(self, store: JsonlStore, session_id: str) -> None:
        with (store.dir / f"{session_id}.jsonl").open("a", encoding="utf-8") as log:
            log.write('{"op": "append", "entry": {"kind": "us')


async def test_sessions_survive_a_restart(tmp_path: Path) -> None:
    options = JsonlStoreOptions(dir=tmp_path)
    first = JsonlStore(options)
    await first.append("s1", Entry(kind=EntryKind.USER, content="remember me"))
    # a crash mid-write leaves half a line: it is ignored, nothing before it is lost
    with (tmp_path / "s1.jsonl").open("a") as log:
        log.write('{"op": "append", "entry": {"kind": "us')
    second = JsonlStore(options)
    [entry] = await second.context("s1")
    assert entry.content == "remember me"
    assert [info.id for info in await second.sessions()] == ["s1"]


async def test_a_config_selects_it(tmp_path: Path) -> None:
    host = PluginHost()
    host.add("jsonl", jsonl_plugin)  # what the `agentframe` entry point does once installed
    config_file = tmp_path / "agentframe.yaml"
    config_file.write_text(
        f"adapter: {{use: scripted, replies: ['hello']}}\nstore: {{use: jsonl, dir: {tmp_path}}}\n"
    )
    stack = build_stack(load_config(host, config_file), host)
    result = await Session(stack, "chat").run("hi")
    assert result.reply == "hello"
    ops = [json.loads(line)["op"] for line in (tmp_path / "chat.jsonl").read_text().splitlines()]
    assert ops == ["log", "enqueue", "claim", "append"]  # its id, the message, its claim, reply


async def test_a_corrupt_line_in_the_middle_is_refused_not_skipped(tmp_path: Path) -> None:
    from agentframe_jsonl.store import CorruptLogError

    store = JsonlStore(JsonlStoreOptions(dir=tmp_path))
    await store.append("s1", Entry(kind=EntryKind.USER, content="one"))
    await store.append("s1", Entry(kind=EntryKind.USER, content="two"))
    log = tmp_path / "s1.jsonl"
    header, first, second = log.read_text().splitlines()
    log.write_text(f"{header}\n{first[:20]}\n{second}\n")
    fresh = JsonlStore(JsonlStoreOptions(dir=tmp_path))
    with pytest.raises(CorruptLogError, match=r"s1.jsonl:2: unreadable operation"):
        await fresh.context("s1")
    with pytest.raises(CorruptLogError):  # still refused: it was never marked as loaded
        await fresh.append("s1", Entry(kind=EntryKind.USER, content="three"))


async def test_an_instance_sees_what_another_wrote_deleted_and_created_again(
    tmp_path: Path,
) -> None:
    """Two instances stand for two processes: each read replays only the new lines, and a
    session deleted and created again under the same name is read from its start."""
    mine, theirs = (
        JsonlStore(JsonlStoreOptions(dir=tmp_path)),
        JsonlStore(JsonlStoreOptions(dir=tmp_path)),
    )
    await mine.append("s1", one := Entry(kind=EntryKind.USER, content="one"))
    assert await theirs.context("s1") == [one]
    await mine.append("s1", two := Entry(kind=EntryKind.USER, content="two"))
    assert await theirs.context("s1") == [one, two]
    await theirs.delete("s1")
    await theirs.append("s1", new := Entry(kind=EntryKind.USER, content="a new session, longer"))
    assert await mine.context("s1") == [new]
    await theirs.delete("s1")
    assert await mine.sessions() == []


async def test_a_reader_leaves_a_partial_line_and_the_next_writer_cuts_it(tmp_path: Path) -> None:
    store = JsonlStore(JsonlStoreOptions(dir=tmp_path))
    await store.append("s1", one := Entry(kind=EntryKind.USER, content="one"))
    log = tmp_path / "s1.jsonl"
    with log.open("a") as file:
        file.write('{"op": "append", "entry": {"kind": "us')
    torn = log.read_bytes()
    reader = JsonlStore(JsonlStoreOptions(dir=tmp_path))
    assert await reader.context("s1") == [one]
    assert log.read_bytes() == torn  # a reader never cuts: only a writer, under the lock
    await reader.append("s1", two := Entry(kind=EntryKind.USER, content="two"))
    assert await JsonlStore(JsonlStoreOptions(dir=tmp_path)).context("s1") == [one, two]
    assert all(json.loads(line) for line in log.read_text().splitlines())
