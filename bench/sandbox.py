"""Time the Bash sandbox adds to one call: `echo hi` through claude-tools' `Bash`, sandboxed
(bubblewrap, network off) and not, interleaved (so a change of the machine's load falls on
both alike), after one warm-up call of each (the sandbox's one-time probe is in it).

    python bench/sandbox.py [--calls 200]

Prints the p50 and p90 of each and the p50 added by the sandbox; the goal is at most 50 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from agentframe_claude_tools import (
    ClaudeTools,
    ClaudeToolsOptions,
    SandboxOptions,
    SandboxUnavailableError,
    sandbox_argv,
)

from agentframe_core import MemoryStore, RunContext, Stack, ToolCall, VerbatimBuilder
from agentframe_core.testing import ScriptedAdapter

GOAL_MS = 50.0


async def one_call(tools: ClaudeTools, ctx: RunContext) -> float:
    """Seconds of one `Bash` call of `echo hi`, checked."""
    started = time.perf_counter()
    result = await tools.dispatch(ToolCall("1", "Bash", {"command": "echo hi"}), ctx)
    took = time.perf_counter() - started
    if result.is_error or result.content != "hi":
        raise SystemExit(f"unexpected result: {result.content!r}")
    return took


async def measure(calls: int, project: Path) -> tuple[list[float], list[float]]:
    ctx = RunContext("bench", Stack(ScriptedAdapter(), MemoryStore(), VerbatimBuilder()))
    plain = ClaudeTools(ClaudeToolsOptions(root=project))
    boxed = ClaudeTools(ClaudeToolsOptions(root=project, sandbox=SandboxOptions()))
    await one_call(plain, ctx)
    await one_call(boxed, ctx)
    plain_s, boxed_s = [], []
    for _ in range(calls):
        plain_s.append(await one_call(plain, ctx))
        boxed_s.append(await one_call(boxed, ctx))
    return plain_s, boxed_s


def _ms(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100)[q - 1] * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=200)
    calls = parser.parse_args().calls
    with tempfile.TemporaryDirectory() as folder:
        project = Path(folder)
        try:
            sandbox_argv(["true"], project, SandboxOptions())
        except SandboxUnavailableError as err:
            sys.exit(f"no sandbox here: {err}")
        plain, boxed = asyncio.run(measure(calls, project))
    added = _ms(boxed, 50) - _ms(plain, 50)
    print(f"{calls} calls of `echo hi` each, interleaved")
    print(f"unsandboxed  p50 {_ms(plain, 50):6.1f} ms  p90 {_ms(plain, 90):6.1f} ms")
    print(f"sandboxed    p50 {_ms(boxed, 50):6.1f} ms  p90 {_ms(boxed, 90):6.1f} ms")
    verdict = "within" if added <= GOAL_MS else "OVER"
    print(f"added at p50 {added:6.1f} ms ({verdict} the {GOAL_MS:g} ms goal)")


if __name__ == "__main__":
    main()
