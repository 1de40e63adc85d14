"""Every answer set aside, by the adapter (malformed) or by `retry`, is kept, numbered, so that
none is lost to the next one."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from agentframe_agentfs import AgentFSAdapter, AgentFSOptions, Folder
from agentframe_agentfs.contract import MAX_ENVELOPE_BYTES, Answer, atomic_write, write_answer
from agentframe_agentfs.errors import MalformedAnswerError
from agentframe_agentfs.inspection import retry

from agentframe_core import CompletionRequest, Message


def kept(folder: Folder, task_id: str) -> list[str]:
    """The rejected answers of a task, oldest first, by their text."""
    paths = folder.paths(task_id)
    return [paths.rejected(n).read_text() for n in range(1, 10) if paths.rejected(n).exists()]


def test_each_retry_keeps_the_answer_it_sets_aside(tmp_path: Path) -> None:
    folder = Folder(tmp_path)
    folder.ensure()
    paths = folder.paths("c" * 64)
    paths.task.write_text('{"task_id": "' + paths.id + '", "system": "", "user": "q"}')
    for text in ("first", "second"):
        write_answer(paths, Answer(text))
        retry(folder, paths.id)
        assert not paths.done.exists() and not paths.answer.exists()
    texts = kept(folder, paths.id)
    assert len(texts) == 2 and '"first"' in texts[0] and '"second"' in texts[1]


async def test_every_malformed_answer_to_one_request_is_kept(tmp_path: Path) -> None:
    fs = AgentFSAdapter(AgentFSOptions(dir=tmp_path, timeout_seconds=10, heartbeat="off"))
    request = CompletionRequest([Message("user", "hi")], metadata={"context_label": "t"})
    paths = fs.folder.paths(fs.envelope(request)["task_id"])

    async def answer_badly() -> None:
        for n in range(3):
            while paths.done.exists() or not paths.task.exists():
                await asyncio.sleep(0.005)
            atomic_write(paths.answer, f"not json {n}".encode())
            atomic_write(paths.done, b"")

    bad = asyncio.create_task(answer_badly())
    with pytest.raises(MalformedAnswerError):
        await fs.complete(request)
    await bad
    assert kept(fs.folder, paths.id) == ["not json 0", "not json 1", "not json 2"]


async def test_hostile_answer_files_are_refused_unread_and_kept(tmp_path: Path) -> None:
    """A FIFO (reading would wait for ever), a sparse file over the cap (reading would take
    64 MiB), bytes that are not UTF-8: each is malformed at once, and set aside."""
    fs = AgentFSAdapter(AgentFSOptions(dir=tmp_path, timeout_seconds=10, heartbeat="off"))
    request = CompletionRequest([Message("user", "hi")], metadata={"context_label": "t"})
    paths = fs.folder.paths(fs.envelope(request)["task_id"])

    def fifo() -> None:
        os.mkfifo(paths.answer)

    def huge() -> None:
        with paths.answer.open("wb") as handle:
            handle.truncate(MAX_ENVELOPE_BYTES + 1)

    def not_utf8() -> None:
        paths.answer.write_bytes(b'{"task_id": "\xff"}')

    async def answer_badly() -> None:
        for make in (fifo, huge, not_utf8):
            while paths.done.exists() or not paths.task.exists():
                await asyncio.sleep(0.005)
            make()
            atomic_write(paths.done, b"")

    bad = asyncio.create_task(answer_badly())
    async with asyncio.timeout(30):
        with pytest.raises(MalformedAnswerError, match="not UTF-8") as err:
            await fs.complete(request)
    await bad
    assert str(paths.answer) in str(err.value)
    assert [paths.rejected(n).exists() for n in (1, 2, 3)] == [True, True, True]
