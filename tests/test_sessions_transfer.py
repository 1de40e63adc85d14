"""JSON Lines export/import of sessions, and the CLI's errors for stores without the capability."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from agentframe_core import hookimpl
from agentframe_core.assembly.plugins import PluginHost
from agentframe_core.cli.app import App
from agentframe_core.cli.sessions import sessions
from agentframe_core.contract.model import Compaction, Entry, EntryKind, SessionInfo
from agentframe_core.contract.protocols import StoredEntry
from agentframe_core.contract.registry import Register
from agentframe_core.parts.memorystore import MemoryStore
from agentframe_core.support.transfer import TransferError, dump_line, read_lines


async def sample_store() -> MemoryStore:
    store = MemoryStore()
    first = Entry(kind=EntryKind.USER, content="héllo\n\N{SNOWMAN}", origin={"host": ["cli", 1]})
    await store.append("a", first)
    await store.append("a", Entry(kind=EntryKind.TOOL_CALL, tool_call_id="c", tool_name="t"))
    await store.enqueue("a", Entry(kind=EntryKind.NOTIFICATION, content="later", tag="n"))
    marker = Entry(kind=EntryKind.COMPACTION, content="sum", meta={"tokens": 12})
    await store.compact("a", Compaction(marker, frozenset({first.id})))
    await store.append("b", Entry(kind=EntryKind.ASSISTANT, content="other session"))
    return store


async def test_lines_read_back_as_the_same_records() -> None:
    store = await sample_store()
    lines = [dump_line(sid, r) for sid in ("a", "b") for r in await store.history(sid)]
    found = read_lines([line + "\n" for line in lines] + ["\n"], "export.jsonl")
    assert found == {"a": await store.history("a"), "b": await store.history("b")}
    copy = MemoryStore()
    for sid, records in found.items():
        await copy.restore(sid, records)
    again = [dump_line(sid, r) for sid in ("a", "b") for r in await copy.history(sid)]
    assert again == lines


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("{not json", "Invalid JSON"),
        ('{"session_id": "a", "entry": {"id": "x", "kind": "robot", "created_at": 1}}', "kind"),
        ('{"session_id": "a", "entry": {"kind": "user", "created_at": 1}}', "entry.id"),
        ('{"session_id": "a", "entry": {"id": "x", "kind": "user", "created_at": "1"}}', "created"),
        ('{"session_id": "a", "entry": {"id": "x", "kind": "user", "created_at": 1, "v": 2}}', "v"),
        ('{"entry": {"id": "x", "kind": "user", "created_at": 1}}', "session_id"),
        ('{"session_id": "a", "entry": {"id": "x", "kind": "user", "created_at": 1}, "x": 1}', "x"),
    ],
)
async def test_a_bad_line_is_reported_with_file_and_line(line: str, problem: str) -> None:
    store = await sample_store()
    good = [dump_line("a", r) for r in await store.history("a")]
    with pytest.raises(TransferError) as raised:
        read_lines([*good, "", line], "dump.jsonl")
    message = str(raised.value)
    assert message.startswith(f"dump.jsonl:{len(good) + 2}: ")
    assert problem in message


async def test_a_repeated_entry_is_reported_with_both_lines() -> None:
    store = await sample_store()
    line = dump_line("a", (await store.history("a"))[0])
    with pytest.raises(TransferError, match=r"dump.jsonl:3: .* already appears on line 1"):
        read_lines([line, dump_line("b", (await store.history("b"))[0]), line], "dump.jsonl")


def test_an_entry_that_is_not_json_cannot_be_exported() -> None:
    record = StoredEntry(Entry(kind=EntryKind.USER, origin=object()))
    with pytest.raises(TransferError, match="session 's', entry"):
        dump_line("s", record)
    nan = StoredEntry(Entry(kind=EntryKind.USER, meta={"x": float("nan")}))
    with pytest.raises(TransferError):
        dump_line("s", nan)


# -- the CLI with a store that has none of the optional capabilities -------------------------


class BareStore:
    """Only the Store contract: no history/restore, no prune, no vacuum."""

    def __init__(self) -> None:
        self._inner = MemoryStore()

    async def append(self, session_id: str, entry: Entry) -> None:
        await self._inner.append(session_id, entry)

    async def enqueue(self, session_id: str, entry: Entry) -> None:
        await self._inner.enqueue(session_id, entry)

    async def claim_pending(self, session_id: str, at: int) -> int:
        return await self._inner.claim_pending(session_id, at)

    async def context(self, session_id: str) -> list[Entry]:
        return await self._inner.context(session_id)

    async def compact(self, session_id: str, compaction: Compaction) -> None:
        await self._inner.compact(session_id, compaction)

    async def sessions(self) -> list[SessionInfo]:
        return await self._inner.sessions()

    async def delete(self, session_id: str) -> None:
        await self._inner.delete(session_id)


class BarePlugin:
    @hookimpl
    def agentframe_stores(self, register: Register) -> None:
        register("bare", lambda _: BareStore())


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTFRAME_CACHE_DIR", str(tmp_path / "cache"))


def run(tmp_path: Path, store: str, *args: str) -> tuple[int, str]:
    config = tmp_path / "agentframe.yaml"
    config.write_text(f"adapter: scripted\nstore: {store}\n")
    host = PluginHost()
    host.add("bare", BarePlugin())
    app = App(config_file=str(config))
    app._host = host
    result = CliRunner().invoke(sessions, list(args), obj=app)
    return result.exit_code, result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["export"], "cannot export sessions: it does not implement ExportableStore"),
        (["prune", "--keep-last", "1"], "cannot prune sessions: it does not implement Prunable"),
        (["prune", "--older-than", "2d", "--dry-run"], "cannot prune sessions"),
        (["prune", "--vacuum"], "cannot vacuum: it has no vacuum() method"),
    ],
)
def test_a_store_without_the_capability_gets_a_clear_error(
    tmp_path: Path, args: list[str], message: str
) -> None:
    code, output = run(tmp_path, "bare", *args)
    assert code == 1
    assert f"the configured store (BareStore) {message}" in output


def test_import_into_a_store_without_restore_is_refused(tmp_path: Path) -> None:
    line = dump_line("s", StoredEntry(Entry(kind=EntryKind.USER, content="hi")))
    source = tmp_path / "in.jsonl"
    source.write_text(line + "\n")
    code, output = run(tmp_path, "bare", "import", str(source))
    assert code == 1
    assert "cannot import sessions: it does not implement ExportableStore" in output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["prune"], "--older-than AGE and/or --keep-last N"),
        (["prune", "--older-than", "30 days"], "is not an age like 30d"),
        (["prune", "--older-than", "3y"], "is not an age like 30d"),
        (["prune", "--keep-last", "-1"], "-1 is not in the range"),
    ],
)
def test_prune_arguments_are_checked(tmp_path: Path, args: list[str], message: str) -> None:
    code, output = run(tmp_path, "memory", *args)
    assert code == 2
    assert message in output
