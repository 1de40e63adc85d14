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
    assert ops == ["enqueue", "claim", "append"]  # the user message, its claim, the reply


async def test_a_corrupt_line_in_the_middle_is_refused_not_skipped(tmp_path: Path) -> None:
    from agentframe_jsonl.store import CorruptLogError

    store = JsonlStore(JsonlStoreOptions(dir=tmp_path))
    await store.append("s1", Entry(kind=EntryKind.USER, content="one"))
    await store.append("s1", Entry(kind=EntryKind.USER, content="two"))
    log = tmp_path / "s1.jsonl"
    first, second = log.read_text().splitlines()
    log.write_text(f"{first[:20]}\n{second}\n")
    fresh = JsonlStore(JsonlStoreOptions(dir=tmp_path))
    with pytest.raises(CorruptLogError, match=r"s1.jsonl:1: unreadable operation"):
        await fresh.context("s1")
    with pytest.raises(CorruptLogError):  # still refused: it was never marked as loaded
        await fresh.append("s1", Entry(kind=EntryKind.USER, content="three"))
