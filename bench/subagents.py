"""Cost of delegating to a sub-agent, and what parallel delegation gains.

1. Overhead: one `single` delegation (the `subagent` tool's dispatch: agent lookup, the
   child's stack and session, the link to the parent, progress events, the result) against
   running the same agent on the same task directly with `Session.run`, side by side, with
   a scripted model that answers at once (the framework alone) and one that takes 20 ms.
2. Speed-up: 8 tasks of a model that takes `--delay` seconds, `parallel` with 4 slots
   against the same 8 run one at a time (`max_concurrency: 1`). Ideal: 4x.

    python bench/subagents.py [--repeat 200] [--delay 0.2]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable

from agentframe_subagent import SubagentOptions, SubagentTool

from agentframe_core import (
    AgentDefinition,
    MemoryStore,
    RunContext,
    Session,
    Stack,
    ToolCall,
    VerbatimBuilder,
)
from agentframe_core.testing import ScriptedAdapter, ScriptedReply

WORKER = AgentDefinition(name="worker", description="Does one task.", prompt="You work.")


def _stack(delay: float) -> Stack:
    model = ScriptedAdapter([ScriptedReply(content="the answer", delay=delay)], cycle=True)
    return Stack(model, MemoryStore(), VerbatimBuilder())


async def _median(work: Callable[[], Awaitable[object]], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        await work()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


async def overhead(repeat: int, delay: float) -> tuple[float, float]:
    """Median seconds of (direct run, single delegation), interleaved in one run."""
    stack = _stack(delay)
    tool = SubagentTool(agents=[WORKER])
    stack.tools.append(tool)
    ctx = RunContext("parent", stack)
    call = ToolCall("c", "subagent", {"agent": "worker", "task": "do it"})

    async def direct() -> object:
        return await Session(stack, agent=WORKER).run("do it")

    async def delegated() -> object:
        result = await tool.dispatch(call, ctx)
        assert not result.is_error, result.content
        return result

    await direct(), await delegated()  # warm up: imports, validators, prompt cache
    pairs = [(await _median(direct, 1), await _median(delegated, 1)) for _ in range(repeat)]
    return statistics.median(p[0] for p in pairs), statistics.median(p[1] for p in pairs)


async def speedup(delay: float, tasks: int = 8, slots: int = 4) -> tuple[float, float]:
    """Seconds for `tasks` children one at a time, and `slots` at once."""
    call = ToolCall("c", "subagent", {"tasks": [{"agent": "worker", "task": "t"}] * tasks})
    walls = []
    for concurrency in (1, slots):
        stack = _stack(delay)
        options = SubagentOptions(max_tasks=tasks, max_concurrency=concurrency)
        tool = SubagentTool(options, agents=[WORKER])
        started = time.perf_counter()
        result = await tool.dispatch(call, RunContext("parent", stack))
        walls.append(time.perf_counter() - started)
        assert not result.is_error, result.content
    return walls[0], walls[1]


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--delay", type=float, default=0.2)
    args = parser.parse_args()
    print("single delegation vs Session.run of the same agent (median of each, interleaved)")
    for model_delay, repeat in ((0.0, args.repeat), (0.02, max(args.repeat // 10, 5))):
        direct, delegated = await overhead(repeat, model_delay)
        print(
            f"  model {model_delay * 1000:>4.0f} ms: direct {direct * 1000:7.2f} ms, "
            f"delegated {delegated * 1000:7.2f} ms, ratio {delegated / direct:.2f}x (goal <= 1.3x)"
        )
    one_at_a_time, parallel = await speedup(args.delay)
    print(f"8 tasks, model {args.delay:g} s each")
    print(
        f"  one at a time {one_at_a_time:.2f} s, 4 slots {parallel:.2f} s, "
        f"speed-up {one_at_a_time / parallel:.2f}x (goal >= 3.5x)"
    )


if __name__ == "__main__":
    asyncio.run(main())
