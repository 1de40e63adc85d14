"""Sync tools run on reused daemon threads; a thread stuck in a timed-out tool is left behind
and replaced, so the pool never waits on it (issue 29)."""

from __future__ import annotations

import asyncio
import contextvars
import multiprocessing
import threading
import time

from stacks import call

from agentframe_core import tool
from agentframe_core.engine.session import Session
from agentframe_core.testing import eventually_async


async def test_sync_tool_calls_reuse_their_thread(make_stack) -> None:
    threads: list[threading.Thread] = []

    @tool
    def where() -> str:
        """Says nothing; remembers its thread."""
        threads.append(threading.current_thread())
        return "here"

    stack = make_stack([call("where"), "done"] * 20, [where])
    session = Session(stack, system="test")
    for _ in range(20):
        assert (await session.run("go")).reply == "done"
    assert len(threads) == 20
    assert len(set(threads)) == 1  # a new thread per call before: 20
    assert threads[0].daemon and threads[0] is not threading.main_thread()


async def test_a_stuck_tool_is_left_behind_and_the_next_call_runs_at_once(make_stack) -> None:
    release = threading.Event()
    threads: dict[str, threading.Thread] = {}

    @tool(timeout=0.2)
    def stuck() -> str:
        """Hangs until released."""
        threads["stuck"] = threading.current_thread()
        release.wait(30)
        return "late"

    @tool
    def quick() -> str:
        """Answers at once."""
        threads["quick"] = threading.current_thread()
        return "quick"

    stack = make_stack([call("stuck"), "gave up", call("quick"), "done"], [stuck, quick])
    session = Session(stack, system="test")
    first = await session.run("one")
    assert "timed out after 0.2 s" in first.tool_calls[0].result.content
    started = time.monotonic()
    second = await session.run("two")
    assert second.tool_calls[0].result.content == "quick" and time.monotonic() - started < 1
    assert threads["quick"] is not threads["stuck"]  # replaced, not waited for
    assert threads["stuck"].is_alive()
    release.set()
    threads["stuck"].join(5)  # its call ended; it waits idle in the pool or exits


async def test_the_callers_context_reaches_the_tool() -> None:
    from agentframe_core.engine.daemonpool import in_daemon_thread

    var: contextvars.ContextVar[str] = contextvars.ContextVar("var")
    var.set("the caller's")
    assert await in_daemon_thread(lambda: var.get(), {}) == "the caller's"


async def test_an_error_reaches_the_caller_and_the_thread_serves_on() -> None:
    from agentframe_core.engine.daemonpool import DaemonPool, in_daemon_thread

    pool = DaemonPool(max_idle=2)

    def fail() -> None:
        raise KeyError("boom")

    for _ in range(3):
        try:
            await in_daemon_thread(fail, {}, pool)
        except KeyError as err:
            assert err.args == ("boom",)
        else:
            raise AssertionError("the error was lost")
    assert pool.started == 1


async def test_idle_threads_beyond_the_bound_exit() -> None:
    from agentframe_core.engine.daemonpool import DaemonPool, in_daemon_thread

    pool = DaemonPool(max_idle=2, name="bounded-pool")
    release = threading.Event()
    calls = [in_daemon_thread(release.wait, {"timeout": 10}, pool) for _ in range(6)]
    waiting = asyncio.gather(*calls)
    await eventually_async(lambda: pool.started >= 6, what="six threads to start")
    assert pool.started == 6  # all busy at once: one thread each
    release.set()
    assert await waiting == [True] * 6
    await eventually_async(lambda: _alive("bounded-pool") <= 2, what="idle threads to exit")
    assert _alive("bounded-pool") == 2


def _alive(name: str) -> int:
    return sum(t.name == name for t in threading.enumerate())


def _in_forked_child(queue: multiprocessing.Queue) -> None:
    from agentframe_core.engine.daemonpool import in_daemon_thread

    queue.put(asyncio.run(asyncio.wait_for(in_daemon_thread(lambda: "ran", {}), 5)))


def test_a_forked_child_does_not_wait_for_its_parents_threads() -> None:
    from agentframe_core.engine.daemonpool import in_daemon_thread

    assert asyncio.run(in_daemon_thread(lambda: "parent", {})) == "parent"  # one idle now
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_in_forked_child, args=(queue,))
    child.start()
    child.join(10)
    assert child.exitcode == 0, "the child's call waited for a thread it does not have"
    assert queue.get(timeout=1) == "ran"
