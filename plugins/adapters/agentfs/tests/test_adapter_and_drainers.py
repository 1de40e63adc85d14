"""The adapter in this process, drainers in real other processes: answers, cache hits, a
drainer killed mid-write, timeouts, heartbeat loss, two drainers, malformed answers, SIGTERM."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import time
from pathlib import Path

import pytest
from agentframe_agentfs import (
    AgentFSAdapter,
    AgentFSOptions,
    DrainerFailedError,
    DrainerLostError,
    Folder,
    NoDrainerError,
    TaskTimeoutError,
)

from agentframe_core import CompletionRequest, Message
from agentframe_core.testing import eventually_async


def ask(text: str, label: str = "test:1") -> CompletionRequest:
    return CompletionRequest(
        [Message("system", "You are terse."), Message("user", text)],
        metadata={"context_label": label},
    )


def adapter(folder: Path, inotify: bool | None = None, **options: object) -> AgentFSAdapter:
    return AgentFSAdapter(AgentFSOptions(dir=folder, **options), inotify=inotify)  # type: ignore[arg-type]


@pytest.mark.parametrize("inotify", [None, False], ids=["inotify", "polling"])
async def test_a_drainer_answers_and_a_repeat_is_a_cache_hit(
    tmp_path, start_drainer, inotify
) -> None:
    drainer = start_drainer(tmp_path, ["Paris."])
    fs = adapter(tmp_path, inotify, timeout_seconds=30)
    completion = await fs.complete(ask("Capital of France?"))
    assert completion.content == "Paris." and completion.finish_reason == "stop"
    paths = fs.folder.paths(fs.envelope(ask("Capital of France?"))["task_id"])
    written = paths.task.stat()
    assert drainer.stop() == 0
    # the drainer is gone: only the cache can answer, and nothing is written for it
    started = time.monotonic()
    again = await adapter(tmp_path, timeout_seconds=30, heartbeat="off").complete(
        ask("Capital of France?")
    )
    assert again.content == "Paris." and time.monotonic() - started < 1.0
    after = paths.task.stat()
    assert (after.st_ino, after.st_mtime_ns) == (written.st_ino, written.st_mtime_ns)
    assert drainer.answered() == [paths.id]
    # another label is another task: no answer for it
    with pytest.raises(TaskTimeoutError):
        await adapter(tmp_path, timeout_seconds=0.3, heartbeat="off").complete(
            ask("Capital of France?", label="test:2")
        )


async def test_timeout_names_the_task_file(tmp_path) -> None:
    fs = adapter(tmp_path, timeout_seconds=0.3)  # auto: no heartbeat ever seen, so it waits
    started = time.monotonic()
    with pytest.raises(TimeoutError) as err:
        await fs.complete(ask("anyone?"))
    assert isinstance(err.value, TaskTimeoutError)
    assert 0.3 <= time.monotonic() - started < 5
    task_file = fs.folder.paths(fs.envelope(ask("anyone?"))["task_id"]).task
    assert str(task_file) in str(err.value) and task_file.exists()


async def test_heartbeat_loss_fails_fast(tmp_path, start_drainer) -> None:
    drainer = start_drainer(tmp_path, [{"content": "too late", "delay": 120}])
    fs = adapter(tmp_path, timeout_seconds=120, heartbeat_grace=1.0)
    waiting = asyncio.create_task(fs.complete(ask("slow one")))
    paths = fs.folder.paths(fs.envelope(ask("slow one"))["task_id"])
    await eventually_async(paths.claim.exists, 30, what="the drainer's claim")
    drainer.process.send_signal(signal.SIGKILL)
    killed = time.monotonic()
    with pytest.raises(DrainerLostError) as err:
        await asyncio.wait_for(waiting, 30)
    assert time.monotonic() - killed < 10  # the grace, not the 120 s timeout
    assert str(paths.task) in str(err.value) and "agent-mode serve" in str(err.value)
    assert not paths.done.exists()


async def test_required_heartbeat_fails_when_no_drainer_runs(tmp_path) -> None:
    fs = adapter(tmp_path, timeout_seconds=120, heartbeat="required", heartbeat_grace=0.5)
    started = time.monotonic()
    with pytest.raises(NoDrainerError) as err:
        await fs.complete(ask("hello?"))
    assert time.monotonic() - started < 5
    assert "agentframe agent-mode serve --dir" in str(err.value)


async def test_heartbeat_off_ignores_a_dead_drainer(tmp_path, start_drainer) -> None:
    drainer = start_drainer(tmp_path, [{"content": "x", "delay": 120}])
    fs = adapter(tmp_path, timeout_seconds=2.5, heartbeat="off", heartbeat_grace=0.5)
    waiting = asyncio.create_task(fs.complete(ask("off")))
    claim = fs.folder.paths(fs.envelope(ask("off"))["task_id"]).claim
    await eventually_async(claim.exists, 30, what="the drainer's claim")
    drainer.process.send_signal(signal.SIGKILL)
    with pytest.raises(TaskTimeoutError):
        await waiting


async def test_sigterm_gives_claimed_tasks_back_and_waiters_learn_it(
    tmp_path, start_drainer
) -> None:
    drainer = start_drainer(tmp_path, [{"content": "never", "delay": 120}], workers=2)
    fs = adapter(tmp_path, timeout_seconds=120, heartbeat_grace=5)
    waiting = [asyncio.create_task(fs.complete(ask(f"q{i}"))) for i in range(2)]
    claims = [fs.folder.paths(fs.envelope(ask(f"q{i}"))["task_id"]).claim for i in range(2)]
    await eventually_async(lambda: all(c.exists() for c in claims), 30, what="claims")
    stopped = time.monotonic()
    # it stops without finishing its 120 s tasks; the bound leaves a loaded machine room to
    # start the handler and write the files back (5 s was once 9 s at a load of 8)
    assert drainer.stop(signal.SIGTERM, timeout=60) == 0
    assert time.monotonic() - stopped < 60
    assert not any(c.exists() for c in claims)
    assert list((tmp_path / "agent_heartbeat").iterdir()) == []
    for task in waiting:  # the heartbeat file is gone: no need to wait out the grace
        with pytest.raises(DrainerLostError, match="every drainer has stopped"):
            await asyncio.wait_for(task, 10)


async def test_a_drainer_killed_mid_task_is_replaced_and_never_half_read(
    tmp_path, start_drainer
) -> None:
    first = start_drainer(tmp_path, [{"content": "from the first", "delay": 120}])
    fs = adapter(tmp_path, timeout_seconds=60, heartbeat="off")
    waiting = asyncio.create_task(fs.complete(ask("who answers?")))
    paths = fs.folder.paths(fs.envelope(ask("who answers?"))["task_id"])
    await eventually_async(paths.claim.exists, 30, what="the first drainer's claim")
    first.process.send_signal(signal.SIGKILL)
    first.process.wait(10)
    assert paths.claim.exists()  # the dead drainer's claim is left behind...
    second = start_drainer(tmp_path, ["from the second"])
    completion = await asyncio.wait_for(waiting, 30)  # ...and taken over by the second
    assert completion.content == "from the second"
    assert second.stop() == 0  # its log is complete once it has exited
    assert second.answered() == [paths.id] and first.answered() == []
    assert not paths.claim.exists()


async def test_a_base_drainer_dying_mid_write_is_never_read(
    tmp_path, start_base_drainer, start_drainer
) -> None:
    fs = adapter(tmp_path, timeout_seconds=60, heartbeat="off")
    waiting = asyncio.create_task(fs.complete(ask("careful")))
    paths = fs.folder.paths(fs.envelope(ask("careful"))["task_id"])
    dying = start_base_drainer(tmp_path, "die-mid-write")
    assert await asyncio.to_thread(dying.wait, 30) == -signal.SIGKILL
    half = paths.answer.read_bytes()
    with pytest.raises(ValueError):
        json.loads(half)  # a half answer sits at the final name, with no sentinel
    await asyncio.sleep(0.5)  # time on purpose: nothing may happen meanwhile
    assert not waiting.done()  # ...and the adapter, waiting for `.done`, has not read it
    start_drainer(tmp_path, ["whole"])
    assert (await asyncio.wait_for(waiting, 30)).content == "whole"


async def test_a_malformed_answer_is_reported_and_the_task_asked_again(
    tmp_path, start_base_drainer, caplog
) -> None:
    start_base_drainer(tmp_path, "malformed-once")
    fs = adapter(tmp_path, timeout_seconds=30, heartbeat="off")
    with caplog.at_level(logging.WARNING, logger="agentframe_agentfs"):
        completion = await fs.complete(ask("please"))
    assert completion.content == "fixed"
    paths = fs.folder.paths(fs.envelope(ask("please"))["task_id"])
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any(str(paths.answer) in w and "malformed answer" in w for w in warnings)
    assert paths.rejected(1).read_bytes().endswith(b'"answer": "bro')


async def test_a_drainers_model_failure_is_raised_then_asked_again(tmp_path, start_drainer) -> None:
    drainer = start_drainer(tmp_path, [])  # a script with no reply: its adapter raises
    fs = adapter(tmp_path, timeout_seconds=30)
    with pytest.raises(DrainerFailedError, match="ScriptExhaustedError") as err:
        await fs.complete(ask("fail"))
    paths = fs.folder.paths(fs.envelope(ask("fail"))["task_id"])
    assert paths.answer.name in str(err.value)
    assert not paths.done.exists()  # so a retry asks again rather than reading the failure
    with pytest.raises(DrainerFailedError):
        await fs.complete(ask("fail"))
    assert drainer.stop() == 0
    # Asked twice, answered twice; the task is pending again after each failure, so the live
    # drainer may take it up once more on its own before it stops (a scan or a claim removal
    # falling in that window): at least the two answers asked for, and only to this task.
    answered = drainer.answered()
    assert answered[:2] == [paths.id, paths.id] and set(answered) == {paths.id}


async def test_two_drainers_never_answer_one_task(tmp_path, start_drainer) -> None:
    drainers = [
        start_drainer(tmp_path, [{"content": f"drainer {i}", "delay": 0.02}], workers=2)
        for i in range(2)
    ]
    fs = adapter(tmp_path, timeout_seconds=60)
    requests = [ask(f"task {i}") for i in range(40)]
    completions = await asyncio.gather(*(fs.complete(r) for r in requests))
    assert [drainer.stop() for drainer in drainers] == [0, 0]
    answered = [drainer.answered() for drainer in drainers]
    ids = [fs.envelope(r)["task_id"] for r in requests]
    assert sorted(answered[0] + answered[1]) == sorted(ids)  # each exactly once
    claimed = [drainer.claimed() for drainer in drainers]
    assert claimed == answered  # and none was even started by both
    assert answered[0] and answered[1]
    by = {tid: i for i, tids in enumerate(answered) for tid in tids}
    for tid, completion in zip(ids, completions, strict=True):
        assert completion.content == f"drainer {by[tid]}"


async def test_leftover_tmp_files_are_ignored_and_cleaned(tmp_path, start_drainer) -> None:
    folder = Folder(tmp_path)
    folder.ensure()
    stale = folder.inbox / f"{'d' * 64}.task.json.1234abcd.tmp"
    fresh = folder.outbox / f"{'e' * 64}.answer.json.5678abcd.tmp"
    stale.write_text('{"task_id": "partial')
    fresh.write_text("{")
    old = time.time() - 600
    os.utime(stale, (old, old))
    drainer = start_drainer(tmp_path, ["ok"])
    fs = adapter(tmp_path, timeout_seconds=30)
    assert (await fs.complete(ask("still works"))).content == "ok"
    assert not stale.exists() and fresh.exists()  # only a writer long dead leaves an old .tmp
    assert drainer.stop() == 0
    assert drainer.answered() == [fs.envelope(ask("still works"))["task_id"]]


async def test_a_malformed_envelope_gets_an_error_answer(tmp_path, start_drainer) -> None:
    folder = Folder(tmp_path)
    folder.ensure()
    paths = folder.paths("f" * 64)
    paths.task.write_text("not json")
    (folder.inbox / "not-an-id.task.json").write_text("{}")
    drainer = start_drainer(tmp_path, ["unused"])
    await eventually_async(paths.done.exists, 30, what="the error answer")
    answer = json.loads(paths.answer.read_text())
    assert answer["answer"] == "" and "malformed task envelope" in answer["error"]
    assert str(paths.task) in answer["error"]
    assert "not-an-id.task.json: not a task id" in drainer.log
    assert not (folder.outbox / "not-an-id.done").exists()
