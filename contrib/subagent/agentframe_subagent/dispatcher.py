"""The `subagent` tool: checks a call, runs its children, and reports their answers.

The agents come from every registered agent loader (`find_agents`), seen from the working
directory the stack was built in, filtered by the `agents:` allowlist; they are looked up once
per dispatcher. Embedders may pass the definitions instead, and a `stack` for the children
(e.g. a cheaper model); by default children run on the parent's stack.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from agentframe_core import (
    AgentDefinition,
    PluginHost,
    RunContext,
    Stack,
    Tool,
    ToolCall,
    ToolResult,
    Usage,
    find_agents,
    head_tail,
)

from .child import ChildRun, ChildSpec, run_child
from .describe import describe, parameters
from .modes import run_chain, run_parallel
from .options import SubagentOptions

__all__ = ["TOOL_NAME", "SubagentTool"]

TOOL_NAME = "subagent"

AgentSource = Callable[[RunContext], Sequence[AgentDefinition]]


def _from_loaders(cwd: Path) -> AgentSource:
    def find(ctx: RunContext) -> list[AgentDefinition]:
        if ctx.stack.agents is not None:  # the catalog of the plugins that built the stack
            return ctx.stack.agents(cwd)
        host = PluginHost()  # a stack built by hand: every installed loader
        host.load()
        return find_agents(host, ctx.stack.config, cwd).definitions

    return find


class SubagentTool:
    """A `ToolDispatcher` offering the one tool `subagent`."""

    def __init__(
        self,
        options: SubagentOptions | None = None,
        *,
        agents: AgentSource | Sequence[AgentDefinition] | None = None,
        cwd: Path | None = None,
        stack: Stack | None = None,
    ) -> None:
        self.options = options or SubagentOptions()
        self.stack = stack
        self.cwd = cwd or Path.cwd()
        if agents is None:
            self._source: AgentSource = _from_loaders(self.cwd)
        elif callable(agents):
            self._source = agents
        else:
            listed = list(agents)
            self._source = lambda _ctx: listed
        self._agents: dict[str, AgentDefinition] | None = None
        self._lock = threading.Lock()

    def agents(self, ctx: RunContext) -> dict[str, AgentDefinition]:
        """The agents that may be delegated to, by name (found once)."""
        with self._lock:
            if self._agents is None:
                allowed = self.options.agents
                found = sorted(self._source(ctx), key=lambda a: a.name)
                self._agents = {a.name: a for a in found if allowed is None or a.name in allowed}
            return self._agents

    async def tools(self, ctx: RunContext) -> list[Tool]:
        """The `subagent` tool, or none when no agent may be delegated to."""
        options, agents = self.options, self.agents(ctx)
        if not agents:
            return []
        return [
            Tool(
                name=TOOL_NAME,
                description=describe(list(agents.values()), self._modes()),
                parameters=parameters(
                    self._modes(), options.max_tasks, options.max_task_chars, list(agents)
                ),
                # The call ends itself at `options.timeout`, reporting every task; the
                # loop's own timeout is only a backstop.
                timeout=options.timeout + 5,
                pinned=True,  # the agents index: shown whatever tool selection picks
            )
        ]

    def _modes(self) -> list[str]:
        """The modes offered, in a stable order."""
        return [m for m in ("single", "parallel", "chain") if m in self.options.modes]

    async def dispatch(self, call: ToolCall, ctx: RunContext) -> ToolResult:
        if call.name != TOOL_NAME:
            return ToolResult(
                f"unknown tool {call.name!r}; this dispatcher offers {TOOL_NAME}", True
            )
        asked = _mode(call.arguments)
        if isinstance(asked, str):
            return ToolResult(asked, True)
        mode, items = asked
        if mode not in self._modes():
            return ToolResult(
                f"mode {mode!r} is not offered; offered: {', '.join(self._modes())}", True
            )
        specs = self._specs(items, call.id, self.agents(ctx))
        if isinstance(specs, str):
            return ToolResult(specs, True)

        board: list[ChildRun | None] = [None] * len(specs)
        try:
            async with asyncio.timeout(self.options.timeout):
                await self._run(mode, specs, ctx, board)
        except TimeoutError:
            pass  # the children were cancelled; each task still gets its result
        runs = [
            run or ChildRun(spec.agent.name, "", text="not started: the call ran out of time")
            for run, spec in zip(board, specs, strict=True)
        ]
        if mode == "chain":  # steps after a failure never ran: they are not reported
            ended = next((i for i, run in enumerate(runs) if not run.ok), len(runs) - 1)
            runs = runs[: ended + 1]
        return self._result(mode, runs, len(specs))

    async def _run(
        self, mode: str, specs: list[ChildSpec], ctx: RunContext, board: list[ChildRun | None]
    ) -> None:
        def runner(spec: ChildSpec) -> Awaitable[ChildRun]:
            return run_child(spec, ctx, self.stack or ctx.stack, self, self.cwd, board)

        if mode == "single":
            await runner(specs[0])
        elif mode == "parallel":
            await run_parallel(specs, runner, self.options.max_concurrency)
        else:
            await run_chain(specs, runner, self.options.max_answer_chars)

    def _specs(
        self, items: list[dict[str, Any]], call_id: str, known: dict[str, AgentDefinition]
    ) -> list[ChildSpec] | str:
        """The children to run, or why not (too many, an unknown agent, a task too long)."""
        options = self.options
        if len(items) > options.max_tasks:
            return f"at most {options.max_tasks} tasks per call; got {len(items)}"
        specs = []
        for index, item in enumerate(items):
            agent, task = item.get("agent"), item.get("task")
            where = f"task {index + 1}" if len(items) > 1 else "the task"
            if not isinstance(agent, str) or not isinstance(task, str) or not task.strip():
                return f"{where} needs a non-empty `agent` and `task`"
            if agent not in known:
                names = ", ".join(sorted(known)) or "none"
                return f"{where}: unknown agent {agent!r}; known agents: {names}"
            if len(task) > options.max_task_chars:
                return f"{where} is {len(task)} characters; at most {options.max_task_chars}"
            specs.append(ChildSpec(known[agent], task, call_id, index))
        return specs

    def _result(self, mode: str, runs: list[ChildRun], asked: int) -> ToolResult:
        limit = self.options.max_answer_chars
        total = Usage()
        for run in runs:
            total += run.usage
        meta: dict[str, Any] = {
            # `usage` and `children` are kernel conventions: the run adds `usage` up as its
            # children's, and `sessions show` points at each child session.
            "usage": total.to_dict(),
            "children": [run.to_json() for run in runs],
            "mode": mode,
        }
        if mode == "single":
            run = runs[0]
            return ToolResult(head_tail(run.text, limit), not run.ok, meta=meta)
        parts = [
            f"[{i + 1}] {run.agent} ({run.status}):\n{head_tail(run.text, limit)}"
            for i, run in enumerate(runs)
        ]
        if mode == "chain" and runs and not runs[-1].ok:
            failed = runs[-1]
            parts.append(
                f"chain stopped at step {len(runs)} of {asked} ({failed.agent}): {failed.text}"
            )
            return ToolResult("\n\n".join(parts), True, meta=meta)
        return ToolResult("\n\n".join(parts), not any(r.ok for r in runs), meta=meta)


def _mode(arguments: dict[str, Any]) -> tuple[str, list[dict[str, Any]]] | str:
    """Which mode the arguments ask for, with its tasks; or why they are refused."""
    given = [key for key in ("task", "tasks", "chain") if key in arguments]
    if len(given) != 1:
        return "give exactly one of: `agent` and `task` (single), `tasks` (parallel), `chain`"
    key = given[0]
    if key == "task":
        return "single", [{"agent": arguments.get("agent"), "task": arguments["task"]}]
    if "agent" in arguments:
        return f"`agent` goes inside each item of `{key}`"
    items = arguments[key]
    if not isinstance(items, list) or not items or not all(isinstance(i, dict) for i in items):
        return f"`{key}` must be a non-empty list of {{agent, task}} objects"
    return ("parallel" if key == "tasks" else "chain"), items
