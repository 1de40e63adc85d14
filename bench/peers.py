"""agentframe beside simonw/llm: the cost per run of the loop itself, side by side in one run.

Both get the same zero-latency scripted model and one sync `add` tool; a run is one user
message, two model calls (the first asks for `add`) and one tool call, each checked. The
variants are interleaved over `--passes` passes, so machine noise hits them alike:
- a new session (llm: a new conversation) per run, with a fixed system prompt;
- agentframe with its default system prompt, assembled per session (llm has none to assemble);
- growth: the cost of a run after 200 earlier runs on one session, against the first runs.

The peer is an optional extra, pinned so that the figures stay comparable
(`pip install -e '.[bench]'`); CI does not install it.

    python bench/peers.py [--runs 1000] [--passes 3]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import time
from collections.abc import Callable, Iterator
from typing import Any

import llm

from agentframe_core import (
    FunctionToolset,
    Limits,
    MemoryStore,
    Outcome,
    Session,
    Stack,
    VerbatimBuilder,
    tool,
)
from agentframe_core.testing import ScriptedAdapter

SYSTEM = "You are a calculator."
REPLY = "It is 5."


def add(a: float, b: float) -> float:
    """Add two numbers."""
    return a + b


# -- agentframe --------------------------------------------------------------------------------


async def add_async(a: float, b: float) -> float:
    """Add two numbers."""
    return a + b


def agentframe_stack(sync: bool = True) -> Stack:
    replies = [{"tool_calls": [{"name": "add", "arguments": {"a": 2, "b": 3}}]}, REPLY]
    return Stack(
        adapter=ScriptedAdapter(replies, cycle=True),
        store=MemoryStore(),
        context=VerbatimBuilder(),
        tools=[FunctionToolset([tool(add) if sync else tool(add_async, name="add")])],
        limits=Limits(),
    )


async def agentframe_runs(
    runs: int, *, system: str | None, one_session: bool, sync: bool = True
) -> list[float]:
    """Seconds per run: each on a new session (`system=None`: the default prompt), or all
    on one session; `sync`: the sync `add`, else the same as an async function."""
    stack = agentframe_stack(sync)
    shared = Session(stack, system=system)
    seconds = []
    for _ in range(runs):
        session = shared if one_session else Session(stack, system=system)
        started = time.perf_counter()
        result = await session.run("2+3?")
        seconds.append(time.perf_counter() - started)
        if result.outcome is not Outcome.COMPLETED or result.reply != REPLY or result.turns != 2:
            raise SystemExit(f"an agentframe run went wrong: {result.outcome}, {result.reply!r}")
        if result.tool_calls[0].result.content != "5.0":
            raise SystemExit(f"agentframe's tool answered {result.tool_calls[0].result.content}")
    return seconds


# -- llm ---------------------------------------------------------------------------------------


class ScriptedModel(llm.Model):
    """Asks for `add`, then answers once the tool's result is in: no I/O, no latency."""

    model_id = "scripted"
    supports_tools = True
    can_stream = False

    def execute(self, prompt: Any, stream: bool, response: Any, conversation: Any) -> Iterator[str]:
        if prompt.tool_results:
            yield REPLY
            return
        response.add_tool_call(llm.ToolCall(name="add", arguments={"a": 2, "b": 3}))
        yield ""


def llm_runs(runs: int, *, one_session: bool) -> list[float]:
    model = ScriptedModel()
    shared = model.conversation(tools=[add])
    seconds = []
    for _ in range(runs):
        conversation = shared if one_session else model.conversation(tools=[add])
        started = time.perf_counter()
        chain = conversation.chain("2+3?", system=SYSTEM)
        text = chain.text()
        seconds.append(time.perf_counter() - started)
        if text != REPLY:
            raise SystemExit(f"an llm run went wrong: {text!r}")
    return seconds


# -- the comparison ----------------------------------------------------------------------------


def median_us(seconds: list[float]) -> float:
    return statistics.median(seconds) * 1e6


def growth(runs_of: Callable[[int], list[float]], window: int = 20, after: int = 200) -> float:
    """A run's median cost after `after` runs on one session, over its first runs'."""
    seconds = runs_of(after + window)
    return statistics.median(seconds[after:]) / statistics.median(seconds[:window])


def main(runs: int, passes: int) -> None:
    def af(
        system: str | None, one_session: bool = False, sync: bool = True
    ) -> Callable[[int], list[float]]:
        return lambda n: asyncio.run(
            agentframe_runs(n, system=system, one_session=one_session, sync=sync)
        )

    variants: dict[str, Callable[[int], list[float]]] = {
        "llm": lambda n: llm_runs(n, one_session=False),
        "agentframe, fixed prompt": af(SYSTEM),
        "agentframe, default prompt": af(None),
        "agentframe, fixed prompt, async tool": af(SYSTEM, sync=False),
    }
    for runs_of in variants.values():  # warm up imports and caches
        runs_of(50)
    gc.collect()
    per_run: dict[str, list[float]] = {name: [] for name in variants}
    grows: dict[str, list[float]] = {"llm": [], "agentframe": []}
    for _ in range(passes):
        for name, runs_of in variants.items():
            per_run[name].append(median_us(runs_of(runs)))
        grows["llm"].append(growth(lambda n: llm_runs(n, one_session=True)))
        grows["agentframe"].append(growth(af(SYSTEM, one_session=True)))
    peer = statistics.median(per_run["llm"])
    medians = {name: statistics.median(figures) for name, figures in per_run.items()}
    print(f"llm {llm_version()} beside agentframe, median of {passes} passes x {runs} runs")
    print("per run (2 model calls + 1 tool call, a new session each):")
    for name, micros in medians.items():
        print(f"  {name:40s} {micros:8.1f} µs")
    print("per run, over llm's (goal: at most 0.5x):")
    for name, micros in medians.items():
        if name != "llm":
            print(f"  {name + ' / llm':40s} {micros / peer:8.2f}x")
    print("growth: a run after 200 runs on one session, over the first runs (goal: 1.2x):")
    for name, figures in grows.items():
        print(f"  {name + ' growth':40s} {statistics.median(figures):8.2f}x")


def llm_version() -> str:
    from importlib.metadata import version

    return version("llm")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--passes", type=int, default=3)
    options = parser.parse_args()
    main(options.runs, options.passes)
