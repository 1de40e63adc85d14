"""The server lock: a start cancelled while it waits for the lock does not keep it."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from agentframe_llamacpp.warm import held, locked


async def test_a_cancelled_wait_for_the_lock_lets_it_go(tmp_path: Path) -> None:
    path = tmp_path / "m.lock"
    holding, release = threading.Event(), threading.Event()

    def other_process() -> None:  # another open file: flock treats it as another process
        with locked(path):
            holding.set()
            release.wait(10)

    thread = threading.Thread(target=other_process)
    thread.start()
    holding.wait(10)

    async def start() -> None:
        async with held(path):
            raise AssertionError("the lock was held by another")

    waiting = asyncio.create_task(start())
    await asyncio.sleep(0.2)
    waiting.cancel()
    release.set()
    thread.join(10)
    await asyncio.sleep(0.3)  # the cancelled wait's thread takes the lock, then lets it go
    with locked(path, wait=2):
        pass
