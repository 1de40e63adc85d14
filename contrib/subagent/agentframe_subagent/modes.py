"""The three ways to delegate: one task, tasks side by side, or a chain of steps.

Each returns one `ChildRun` per task it ran, in task order, whatever order they finished
in; a chain's steps after a failure are not run.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence

from agentframe_core import head_tail

from .child import ChildRun, ChildSpec

__all__ = ["PREVIOUS", "run_chain", "run_parallel"]

Runner = Callable[[ChildSpec], Awaitable[ChildRun]]

#: In a chain step's task, replaced with the previous step's answer.
PREVIOUS = "{previous}"


async def run_parallel(specs: Sequence[ChildSpec], runner: Runner, slots: int) -> list[ChildRun]:
    """Every spec, at most `slots` at once. Cancelling this cancels every running child
    at once (a TaskGroup), and the cancellation goes on up."""
    gate = asyncio.Semaphore(slots)
    results: list[ChildRun | None] = [None] * len(specs)

    async def one(position: int, spec: ChildSpec) -> None:
        async with gate:
            results[position] = await runner(spec)

    async with asyncio.TaskGroup() as group:
        for position, spec in enumerate(specs):
            group.create_task(one(position, spec))
    return [r for r in results if r is not None]


async def run_chain(specs: Sequence[ChildSpec], runner: Runner, limit: int) -> list[ChildRun]:
    """Steps in order, `{previous}` replaced by the answer before (at most `limit`
    characters, head and tail); stops at a failure."""
    done: list[ChildRun] = []
    previous = ""
    for spec in specs:
        task = spec.task.replace(PREVIOUS, previous)
        run = await runner(ChildSpec(spec.agent, task, spec.call_id, spec.index))
        done.append(run)
        if not run.ok:
            break
        previous = head_tail(run.text, limit)
    return done
