"""Waking up on a folder: inotify and the polling fallback both see a file renamed into place,
from another process, and waiters of one folder share one inotify instance."""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from agentframe_agentfs import watch as watching
from agentframe_agentfs.watch import inotify_available, watch

MODES = [pytest.param(None, id="inotify"), pytest.param(False, id="polling")]


async def wait_for_file(
    folder: Path, name: str, mode: bool | None, poll: float
) -> tuple[float, bool]:
    """Seconds from start until `name` was seen, and whether inotify did the watching."""
    start = time.monotonic()
    target = folder / name
    async with watch(folder, lambda n, gone: n == name and not gone, poll, inotify=mode) as c:
        while not target.exists():
            await c.wait(10)
    return time.monotonic() - start, c.inotify


@pytest.mark.parametrize("mode", MODES)
async def test_a_file_renamed_in_by_another_process_is_seen(tmp_path: Path, mode) -> None:
    if mode is None and not inotify_available():
        pytest.skip("no inotify here")
    writer = (
        "import os, sys, time; time.sleep(0.3); d = sys.argv[1];"
        "open(d + '/x.done.tmp', 'w').close(); os.rename(d + '/x.done.tmp', d + '/x.done')"
    )
    process = subprocess.Popen([sys.executable, "-c", writer, str(tmp_path)])
    # a poll interval far beyond the test's patience: only a wake-up can make it in time
    waited, used_inotify = await asyncio.wait_for(wait_for_file(tmp_path, "x.done", mode, 30.0), 10)
    process.wait(10)
    assert used_inotify is (mode is None)  # the inotify case really used inotify
    assert waited >= 0.25
    if mode is False:
        assert waited < 2.0  # 1 ms growing by half: the look after 0.3 s comes before 0.5 s
    else:
        assert waited < 1.0


async def test_polling_backs_off_to_the_poll_interval(tmp_path: Path) -> None:
    async with watch(tmp_path, lambda *_: True, 0.05, inotify=False) as changes:
        start = time.monotonic()
        for _ in range(30):
            await changes.wait(10)
        elapsed = time.monotonic() - start
    # 1 ms x 1.5^k caps at 50 ms after ~10 looks: 30 looks take well over 20 x 50 ms
    assert 0.8 < elapsed < 5.0


async def test_poke_wakes_a_waiter(tmp_path: Path) -> None:
    async with watch(tmp_path, lambda *_: False, 30.0) as changes:
        asyncio.get_running_loop().call_later(0.05, changes.poke)
        start = time.monotonic()
        await changes.wait(30.0)
        assert time.monotonic() - start < 5.0


@pytest.mark.skipif(not inotify_available(), reason="no inotify here")
async def test_waiters_of_a_folder_share_one_inotify_instance(tmp_path: Path) -> None:
    def inotify_fds() -> int:
        count = 0
        for fd in Path(f"/proc/{os.getpid()}/fd").iterdir():
            with contextlib.suppress(FileNotFoundError):
                count += "inotify" in os.readlink(fd)
        return count

    async with watch(tmp_path, lambda *_: False, 30.0) as first:
        assert first.inotify
        await asyncio.sleep(0.05)  # let any hub of an earlier loop finish closing
        with_one = inotify_fds()
        names = [f"t{i}.done" for i in range(20)]
        waiters = [asyncio.create_task(wait_for_file(tmp_path, n, None, 30.0)) for n in names]
        await asyncio.sleep(0.1)
        assert inotify_fds() == with_one
        hubs = [hub for (loop, _), hub in watching._hubs.items() if not loop.is_closed()]
        assert len(hubs) == 1 and len(hubs[0].watches) == 21
        for name in names:
            (tmp_path / name).touch()
        await asyncio.wait_for(asyncio.gather(*waiters), 10)


@pytest.mark.skipif(not inotify_available(), reason="no inotify here")
def test_hubs_of_closed_loops_are_released(tmp_path: Path) -> None:
    async def once() -> None:
        async with watch(tmp_path, lambda *_: True, 1.0):
            pass

    for _ in range(5):
        asyncio.run(once())
    asyncio.run(once())
    # each run's hub outlives its waiter, then is closed when the next loop comes along
    assert sum(1 for loop, _ in watching._hubs if loop.is_closed()) <= 1
