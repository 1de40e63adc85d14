"""Daemon threads reused across sync tool calls.

A sync tool runs in a daemon thread so that a timeout frees the run and the process at once:
neither `asyncio.run` nor the interpreter's exit waits for a daemon thread. Starting one per
call cost about half of a run's time in the kernel, so threads are kept and reused. A thread
stuck in a call its caller gave up on is simply busy: the next call takes another idle thread
or starts a new one, so the pool never waits on it; if the stuck call ever returns, its thread
rejoins the pool. At most `max_idle` threads wait idle; one more exits instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import os
import queue
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["DaemonPool", "in_daemon_thread"]

#: A job runs on a pool thread and returns what to do once that thread counts as idle
#: again (hand the result over): so a caller woken by it finds the thread free.
_Job = Callable[[], Callable[[], None]]


class DaemonPool:
    """Runs jobs on daemon threads, each reused for later jobs once its job returns."""

    def __init__(self, max_idle: int = 8, name: str = "agentframe-tool") -> None:
        self._max_idle = max_idle
        self._name = name
        self._lock = threading.Lock()
        self._jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        #: Idle threads not yet promised a job: each one waits in (or is on its way to)
        #: `_jobs.get()`, so a job put in the queue for one of them is always taken.
        self._idle = 0
        self.started = 0  # threads started, ever: what tests and benches read

    def submit(self, job: _Job) -> None:
        """Run `job` on an idle thread, or on a new one when none is idle."""
        with self._lock:
            reuse = self._idle > 0
            if reuse:
                self._idle -= 1
            else:
                self.started += 1
        if reuse:
            self._jobs.put(job)
        else:
            threading.Thread(target=self._work, args=(job,), name=self._name, daemon=True).start()

    def _work(self, job: _Job) -> None:
        while True:
            deliver = job()
            del job  # an idle thread keeps nothing of the call it ran
            with self._lock:
                stay = self._idle < self._max_idle
                if stay:
                    self._idle += 1
            deliver()
            del deliver
            if not stay:
                return
            job = self._jobs.get()

    def _forget_threads(self) -> None:
        """In a forked child no thread of the parent runs: none is idle any more."""
        self._lock = threading.Lock()
        self._jobs = queue.SimpleQueue()
        self._idle = 0


_POOL = DaemonPool()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_POOL._forget_threads)


async def in_daemon_thread(
    fn: Callable[..., Any], values: dict[str, Any], pool: DaemonPool = _POOL
) -> Any:
    """`fn(**values)` on a pooled daemon thread, in a copy of the caller's context. Unlike
    `asyncio.to_thread`, nothing waits for the thread once the caller gave up on it."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[Any] = loop.create_future()
    context = contextvars.copy_context()

    def settle(error: BaseException | None, value: Any) -> None:
        if done.cancelled():
            return
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(value)

    def job() -> Callable[[], None]:
        try:
            value, error = context.run(fn, **values), None
        except BaseException as err:  # handed to the caller, like to_thread does
            value, error = None, err

        def deliver() -> None:
            with contextlib.suppress(RuntimeError):  # the loop is gone: nobody waits any more
                loop.call_soon_threadsafe(settle, error, value)

        return deliver

    pool.submit(job)
    return await done
