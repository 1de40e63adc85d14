"""Waiting in tests for something that happens elsewhere (a process, a thread, a server).

A test waits on a condition, never on a sleep: a sleep long enough on a loaded machine is
needlessly long on an idle one, and one short enough there fails under load.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

__all__ = ["eventually", "eventually_async"]

T = TypeVar("T")

#: How often a condition is checked: often enough to add little to a test, rarely enough that
#: polling costs a loaded machine nothing.
INTERVAL = 0.02


def eventually(condition: Callable[[], T], timeout: float = 30.0, *, what: str = "") -> T:
    """Call `condition` until it returns a truthy value, and return that value; after
    `timeout` seconds an `AssertionError` naming `what` (or the condition)."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what or condition}")
        time.sleep(INTERVAL)


async def eventually_async(
    condition: Callable[[], T | Awaitable[T]], timeout: float = 30.0, *, what: str = ""
) -> T:
    """`eventually` for async tests: the event loop runs while it waits, and `condition` may
    be a coroutine function."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if inspect.isawaitable(value):
            value = await value
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what or condition}")
        await asyncio.sleep(INTERVAL)
