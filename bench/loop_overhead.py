"""Kernel overhead per run, against a plain-Python loop doing the same work in this process.

One run = one user message, 2 model calls (the first asks for a tool) and 1 tool call, with
the `scripted` adapter, the in-memory store and the verbatim builder, each on a new session
with the default system prompt, as users run it (every run is checked: completed, 2 turns).
Side by side in the same run: an explicit system prompt (no assembly), and the default prompt
with its cache emptied before each run (what every new session paid before the cache). Also:
how a run's cost grows with the session's history (0 to 200 prior runs), and the same run
through `Agent(...).run()` (goal: at most 5% over `Session(stack).run()`).

    python bench/loop_overhead.py [--runs 2000]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import time

from agentframe_core import (
    Agent,
    FunctionToolset,
    Limits,
    MemoryStore,
    Outcome,
    Session,
    Stack,
    VerbatimBuilder,
    tool,
)
from agentframe_core.engine.promptcache import clear
from agentframe_core.testing import ScriptedAdapter


@tool
async def add(a: float, b: float) -> float:
    """Add two numbers."""
    return a + b


REPLIES = [{"tool_calls": [{"name": "add", "arguments": {"a": 2, "b": 3}}]}, "It is 5."]


def stack() -> Stack:
    return Stack(
        adapter=ScriptedAdapter(REPLIES, cycle=True),
        store=MemoryStore(),
        context=VerbatimBuilder(),
        tools=[FunctionToolset([add])],
        limits=Limits(),
    )


async def plain_loop(runs: int) -> float:
    """The same work with no framework: two 'model' calls, one tool call, a message list."""
    replies = [{"tool": ("add", {"a": 2, "b": 3})}, {"text": "It is 5."}]
    tools = {"add": add.fn}
    seconds = []
    history: list[dict[str, object]] = []
    for _ in range(runs):
        started = time.perf_counter()
        history.append({"role": "user", "content": "2+3?"})
        for reply in replies:
            if "tool" in reply:
                name, args = reply["tool"]
                history.append({"role": "assistant", "tool": name, "args": args})
                history.append({"role": "tool", "content": str(await tools[name](**args))})
            else:
                history.append({"role": "assistant", "content": reply["text"]})
        seconds.append(time.perf_counter() - started)
    return statistics.median(seconds)


async def framework_runs(
    runs: int, session: Session | None = None, *, system: str | None = None, cold: bool = False
) -> list[float]:
    """Seconds per run: on `session` (its history growing), or each on a new session of one
    shared stack, with the default prompt (`system=None`; `cold`: its cache emptied first)."""
    shared = stack()
    seconds = []
    for _ in range(runs):
        if cold:
            clear()
        current = session or Session(shared, system=system)
        started = time.perf_counter()
        result = await current.run("2+3?")
        seconds.append(time.perf_counter() - started)
        if result.outcome is not Outcome.COMPLETED or result.turns != 2:
            raise SystemExit(f"a run went wrong: {result.outcome} after {result.turns} turns")
    return seconds


async def agent_runs(runs: int) -> tuple[list[float], list[float]]:
    """Seconds per run through `Agent(...).run()` and, alternating, through
    `Session(stack).run()` on the agent's own stack (the same parts built by the same recipe,
    the installed plugins' runtime hooks included), each run on a new session."""
    through_agent, through_session = [], []
    async with Agent(ScriptedAdapter(REPLIES, cycle=True), tools=[add]) as agent:
        built = await agent.stack()
        for _ in range(runs):
            for seconds, run in (
                (through_agent, lambda: agent.run("2+3?")),
                (through_session, lambda: Session(built).run("2+3?")),
            ):
                started = time.perf_counter()
                result = await run()
                seconds.append(time.perf_counter() - started)
                if result.outcome is not Outcome.COMPLETED or result.turns != 2:
                    raise SystemExit(f"a run went wrong: {result.outcome}, {result.turns} turns")
    return through_agent, through_session


async def growth(window: int = 20) -> list[tuple[int, float]]:
    """Median µs per run after 0, 50, 100 and 200 prior runs on one session."""
    session = Session(stack(), system="bench")
    figures, done = [], 0
    for mark in (0, 50, 100, 200):
        await framework_runs(mark - done, session)
        figures.append((mark, statistics.median(await framework_runs(window, session)) * 1e6))
        done = mark + window
    return figures


async def main(runs: int) -> None:
    await framework_runs(50)  # warm up imports and caches
    await framework_runs(50, system="bench")
    await agent_runs(50)
    gc.collect()
    # Interleave the variants in rounds so machine noise hits them alike.
    default, cold, explicit, baseline, agent, agent_session = [], [], [], [], [], []
    for _ in range(5):
        default.append(statistics.median(await framework_runs(runs // 5)))
        through_agent, through_session = await agent_runs(runs // 5)
        agent.append(statistics.median(through_agent))
        agent_session.append(statistics.median(through_session))
        cold.append(statistics.median(await framework_runs(runs // 5, cold=True)))
        explicit.append(statistics.median(await framework_runs(runs // 5, system="bench")))
        baseline.append(await plain_loop(runs // 5))
    fw, before = statistics.median(default) * 1e6, statistics.median(cold) * 1e6
    bare, base = statistics.median(explicit) * 1e6, statistics.median(baseline) * 1e6
    print(f"per run (2 model calls + 1 tool call, a new session each), median of {runs} runs:")
    print(f"  agentframe, default prompt (cached)      {fw:8.1f} µs")
    print(f"  agentframe, default prompt, cache empty  {before:8.1f} µs   (before the cache)")
    print(f"  agentframe, explicit system prompt       {bare:8.1f} µs")
    coded, hooked = statistics.median(agent) * 1e6, statistics.median(agent_session) * 1e6
    print(f"  Agent(...).run(), default prompt         {coded:8.1f} µs")
    print(f"  Session(stack).run() on the Agent's stack {hooked:7.1f} µs   (plugins' hooks in)")
    print(f"  plain loop                               {base:8.1f} µs")
    print(f"  ratio default / plain loop               {fw / base:8.1f}x")
    print(f"  Agent over Session (goal: at most 5%)    {(coded / hooked - 1) * 100:+7.1f} %")
    print(
        f"  prompt assembly per new session: {fw - bare:.1f} µs cached, {before - bare:.1f} µs "
        "uncached (goal: at most 50 µs when nothing changed)"
    )
    figures = await growth()
    empty = figures[0][1]
    print("growth with history (median µs per run on one session):")
    for mark, micros in figures:
        print(f"  after {mark:3d} runs  {micros:8.1f} µs   {micros / empty:4.2f}x empty")
    print(f"  goal: after 200 runs under 1.5x empty -> {figures[-1][1] / empty:.2f}x")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=2000)
    asyncio.run(main(parser.parse_args().runs))
