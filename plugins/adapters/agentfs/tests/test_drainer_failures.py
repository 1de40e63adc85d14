"""A drainer that hits an unexpected error on one task: it says so in the log (with the task's
path), answers with an `error` when it can, never keeps a claim it is not working on, and goes
on answering other tasks. The drainer runs in this process, over a real folder."""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from agentframe_agentfs import Folder
from agentframe_agentfs.contract import MAX_ENVELOPE_BYTES, TaskPaths, build_task
from agentframe_agentfs.drainer import Drainer, DrainerSettings

from agentframe_core import Capabilities, Completion, CompletionRequest, Message
from agentframe_core.testing import ScriptedAdapter

SETTINGS = DrainerSettings(workers=1, poll_interval=0.05, heartbeat_interval=0.05)


def submit(folder: Folder, text: str) -> TaskPaths:
    envelope = build_task(
        [Message("user", text)], context_label="test", max_tokens=None, timeout_seconds=30
    )
    paths = folder.paths(envelope["task_id"])
    paths.task.write_text(json.dumps(envelope))
    return paths


async def until(condition: Callable[[], Any], what: str, timeout: float = 10.0) -> None:
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.01)
    assert condition(), what


@asynccontextmanager
async def running(folder: Folder, adapter: Any) -> AsyncIterator[Drainer]:
    drainer = Drainer(folder, adapter, SETTINGS, drainer_id="under-test")
    stop = asyncio.Event()
    task = asyncio.create_task(drainer.run(stop))
    try:
        yield drainer
    finally:
        stop.set()
        await asyncio.wait_for(task, 10)  # it ends cleanly: no exception escaped a worker


@pytest.fixture
def folder(tmp_path: Path) -> Folder:
    folder = Folder(tmp_path)
    folder.ensure()
    return folder


def _directory(path: Path) -> None:
    path.mkdir()


def _fifo(path: Path) -> None:
    os.mkfifo(path)  # reading it would wait for a writer for ever


def _huge(path: Path) -> None:
    with path.open("wb") as handle:  # sparse: nothing on disk, but read whole it would be
        handle.truncate(MAX_ENVELOPE_BYTES + 1)


def _not_utf8(path: Path) -> None:
    path.write_bytes(b'{"task_id": "\xff\xfe"}')


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (_directory, "not a regular file (a directory)"),
        (_fifo, "not a regular file (a FIFO)"),
        (_huge, "too large"),
        (_not_utf8, "not UTF-8"),
    ],
)
async def test_an_unreadable_task_gets_an_error_answer_and_the_worker_goes_on(
    folder: Folder, caplog: pytest.LogCaptureFixture, make: Callable[[Path], None], reason: str
) -> None:
    broken = folder.paths("a" * 64)
    make(broken.task)
    async with running(folder, ScriptedAdapter(["fine"], cycle=True)):
        await until(broken.done.exists, "an error answer to the unreadable task")
        answer = json.loads(broken.answer.read_text())
        assert answer["answer"] == "" and reason in answer["error"], answer
        assert str(broken.task) in answer["error"]
        assert not broken.claim.exists()
        good = submit(folder, "still there?")  # the only worker is free again
        await until(good.done.exists, "an answer to the next task")
    assert json.loads(good.answer.read_text())["answer"] == "fine"
    assert any(str(broken.task) in r.getMessage() for r in caplog.records if r.levelno >= 40)


async def test_an_answer_that_cannot_be_written_gives_the_claim_back(
    folder: Folder, caplog: pytest.LogCaptureFixture
) -> None:
    stuck = submit(folder, "stuck")
    stuck.answer.mkdir()  # writing the answer (and an error answer) fails, as ENOSPC would
    adapter = ScriptedAdapter(["answer"], cycle=True)
    async with running(folder, adapter) as drainer:
        await until(lambda: drainer.failed == 1, "the failure to be counted")
        await until(lambda: not stuck.claim.exists(), "the claim to be given back")
        good = submit(folder, "next")
        await until(good.done.exists, "an answer to the next task")
        await asyncio.sleep(0.3)  # several scans: the failed task is not taken again at once
        assert len(adapter.requests) == 2 and drainer.failed == 1
        assert not stuck.claim.exists() and not stuck.done.exists()
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert any(str(stuck.task) in e and "IsADirectoryError" in e for e in errors)


class Misbehaving:
    """An adapter whose `complete` returns something that is not a Completion."""

    capabilities = Capabilities()

    def __init__(self) -> None:
        self.calls = 0

    def complete(self, request: CompletionRequest) -> Awaitable[Completion]:
        self.calls += 1

        async def wrong() -> Completion:
            return None  # type: ignore[return-value]

        return wrong()


async def test_an_adapter_misbehaving_outside_its_call_is_an_error_answer(folder: Folder) -> None:
    paths = submit(folder, "hello")
    adapter = Misbehaving()
    async with running(folder, adapter) as drainer:
        await until(paths.done.exists, "an error answer")
        assert drainer.failed == 1 and adapter.calls == 1
    assert "AttributeError" in json.loads(paths.answer.read_text())["error"]
    assert not paths.claim.exists()
