"""The tools one run may use, and the safe execution of one call.

Everything a model sends is untrusted: the name may be unknown or forbidden, the arguments
may not match the schema, the tool may hang or raise. Each of those becomes an error *result*
the model can read and act on; nothing here raises into the loop except cancellation.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field, replace
from typing import Any

from ..contract.configtypes import Limits
from ..contract.definition import AgentDefinition
from ..contract.llm import ToolSpec
from ..contract.model import Message, ToolCall
from ..contract.protocols import RunContext, ToolDispatcher
from ..contract.tools import Tool, ToolResult
from .gate import after_call, gate
from .telemetry import tool_span
from .toolselect import SEARCH_TOOL, ToolSearch, choose, report, visible_limit
from .validation import ToolSchemaError, argument_problems

__all__ = ["ToolCallRecord", "Toolbox"]

log = logging.getLogger("agentframe.tools")


@dataclass(frozen=True, slots=True)
class ToolCallRecord:
    """One executed call (canonical names), its result and how long it took."""

    call: ToolCall
    result: ToolResult
    seconds: float

    @property
    def name(self) -> str:
        return self.call.name

    @property
    def arguments(self) -> dict[str, Any]:
        return self.call.arguments

    @property
    def content(self) -> str:
        """What the tool returned, as the model read it (`run --json`'s `result`)."""
        return self.result.content

    @property
    def is_error(self) -> bool:
        return self.result.is_error

    def to_json(self) -> dict[str, Any]:
        """The record as `run --json` prints it."""
        return {
            "id": self.call.id,
            "name": self.name,
            "arguments": self.arguments,
            "result": self.content,
            "is_error": self.is_error,
            "seconds": round(self.seconds, 6),
            **({"meta": self.result.meta} if self.result.meta else {}),
        }


@dataclass(slots=True)
class Toolbox:
    """Canonical name -> (dispatcher, tool), filtered by the agent, with the wire names."""

    tools: dict[str, tuple[ToolDispatcher, Tool]] = field(default_factory=dict)
    agent: AgentDefinition | None = None
    specs: list[ToolSpec] = field(default_factory=list)
    _wire_to_canonical: dict[str, str] = field(default_factory=dict)
    #: Tools the run may use but does not show (tool selection), and whether the shown
    #: ones grew since the last `take_grown` (the system prompt then lists more tools).
    hidden: dict[str, None] = field(default_factory=dict)
    grown: bool = False
    search: ToolSearch | None = None

    @classmethod
    async def collect(cls, dispatchers: list[ToolDispatcher], ctx: RunContext) -> Toolbox:
        box = cls(agent=ctx.agent)
        for dispatcher in dispatchers:
            for tool in await dispatcher.tools(ctx):
                if tool.name in box.tools:
                    log.warning(
                        "tool %r is offered twice; the first dispatcher wins "
                        "(`agentframe config check` names both)",
                        tool.name,
                    )
                    continue
                box.tools[tool.name] = (dispatcher, tool)
        agent = ctx.agent
        if agent is not None and box.renames:
            agent.check_overrides(tool for _, tool in box.tools.values())
        allowed = [n for n in box.tools if agent is None or agent.allows(n)]
        for name in await box._select(allowed, ctx):
            box._show(name)
        shown = box.visible_names()
        box.hidden = dict.fromkeys(n for n in allowed if n not in shown)
        return box

    async def _select(self, allowed: list[str], ctx: RunContext) -> list[str]:
        """The names to show, in order: all, unless there are more than
        `limits.visible_tools`; then the selection (`toolselect`), with `search_tools`."""
        setting = ctx.stack.limits.visible_tools
        window = ctx.stack.adapter.capabilities.context_window
        limit = visible_limit(setting, window)
        if limit is None or len(allowed) <= limit:
            return allowed
        if SEARCH_TOOL in self.tools:
            log.warning("a tool is named %r: tool selection is off", SEARCH_TOOL)
            return allowed
        tools = [self.tools[name][1] for name in allowed]
        requirement = self.agent.completion_requirement if self.agent else None
        pinned = {t.name for t in tools if t.pinned or t.terminal}
        if requirement is not None:
            pinned.add(requirement.tool)
        base, later = choose(tools, pinned, await ctx.stack.store.context(ctx.session_id), limit)
        self.search = ToolSearch(self._hidden_tools, self.reveal)
        self.tools[SEARCH_TOOL] = (self.search, self.search.tool)
        log.info("tools: %s", report(len(base) + len(later), len(allowed), setting, window))
        return [*base, SEARCH_TOOL, *later]

    def _show(self, name: str) -> None:
        """Add `name` to the specs: a new list, since requests already made hold the old."""
        tool, agent = self.tools[name][1], self.agent
        wire = self.wire_name(name)
        self._wire_to_canonical[wire] = name
        parameters = tool.parameters
        if agent is not None and self.renames:
            parameters = agent.wire_parameters(name, parameters)
        self.specs = [*self.specs, ToolSpec(wire, tool.description, parameters)]

    def _hidden_tools(self) -> list[Tool]:
        return [self.tools[name][1] for name in self.hidden]

    def reveal(self, names: list[str]) -> None:
        """Show hidden tools from the next model call on (appended: the prefix holds)."""
        for name in names:
            if name in self.hidden:
                del self.hidden[name]
                self._show(name)
                self.grown = True

    def take_grown(self) -> bool:
        """Did tools become visible since the last call? (Then the prompt must list them.)"""
        grown, self.grown = self.grown, False
        return grown

    # -- names on the wire: the agent's overrides; the store keeps canonical names -----------

    @property
    def renames(self) -> bool:
        agent = self.agent
        return agent is not None and bool(agent.tool_name_overrides or agent.param_name_overrides)

    def wire_name(self, canonical: str) -> str:
        return canonical if self.agent is None else self.agent.wire_tool_name(canonical)

    def visible_names(self) -> dict[str, str]:
        """Canonical -> model-facing name, for every tool this run may use."""
        return {canonical: wire for wire, canonical in self._wire_to_canonical.items()}

    def to_canonical(self, call: ToolCall) -> ToolCall:
        agent = self.agent
        if agent is None or not self.renames:
            return call
        name = self._wire_to_canonical.get(call.name, call.name)
        return ToolCall(call.id, name, agent.canonical_arguments(name, call.arguments))

    def to_wire(self, messages: list[Message]) -> list[Message]:
        """Rename tool calls in rendered history to what the model was told."""
        agent = self.agent
        if agent is None or not self.renames:
            return messages
        out = []
        for message in messages:
            if message.tool_calls:
                calls = tuple(
                    ToolCall(
                        c.id,
                        agent.wire_tool_name(c.name),
                        agent.wire_arguments(c.name, c.arguments),
                    )
                    for c in message.tool_calls
                )
                message = Message(message.role, message.content, calls)
            elif message.role == "tool" and message.name:
                message = Message(
                    "tool",
                    message.content,
                    (),
                    message.tool_call_id,
                    agent.wire_tool_name(message.name),
                )
            out.append(message)
        return out

    # -- execution ---------------------------------------------------------------------------

    def _allowed(self, name: str) -> bool:
        agent = self.agent
        if agent is None or agent.allows(name):
            return True
        return name == SEARCH_TOOL and self.search is not None

    def is_terminal(self, name: str) -> bool:
        entry = self.tools.get(name)
        return entry is not None and entry[1].terminal

    async def execute(self, call: ToolCall, ctx: RunContext, limits: Limits) -> ToolCallRecord:
        """Run one canonical call with every safeguard; always returns a record."""
        with tool_span(ctx.stack, call.name, call.id, call.arguments, ctx.run_id) as traced:
            started = time.perf_counter()
            try:
                result = await self._execute(call, ctx, limits)
            except asyncio.CancelledError:
                raise
            except Exception as err:  # a gate hook, a broken schema: the model hears
                log.exception("tool call %s could not be run", call.name)
                result = ToolResult(
                    f"tool {call.name} could not be run: {type(err).__name__}: {err}",
                    True,
                    meta={"exception": type(err).__name__},
                )
            seconds = time.perf_counter() - started
            traced.done(result.content, result.is_error, seconds)
        return ToolCallRecord(call, result, seconds)

    async def _execute(self, call: ToolCall, ctx: RunContext, limits: Limits) -> ToolResult:
        found = self.tools.get(call.name)
        agent = self.agent
        if found is not None and call.name in self.hidden:  # known to the model anyway
            self.reveal([call.name])
        if found is None or not self._allowed(call.name):
            available = ", ".join(sorted(self.visible_names().values())) or "none"
            if found is None:
                return ToolResult(f"unknown tool {call.name!r}; available: {available}", True)
            return ToolResult(
                f"tool {call.name!r} is not allowed for agent {agent.name!r}; "  # type: ignore[union-attr]
                f"available: {available}",
                True,
            )
        dispatcher, tool = found
        if agent is not None and agent.permission_mode == "plan" and tool.writes:
            return ToolResult(
                f"tool {call.name!r} changes files or runs code, which plan mode does not allow; "
                "describe the change instead",
                True,
            )
        refusal, gated = await gate(call, ctx)
        if refusal is not None:
            return refusal
        result = await self._execute_checked(gated, tool, dispatcher, ctx, limits)
        if gated is not call:  # a hook rewrote the arguments: the result records them
            result = replace(result, meta={**result.meta, "arguments": gated.arguments})
        return await after_call(gated, result, ctx)

    async def _execute_checked(
        self,
        call: ToolCall,
        tool: Tool,
        dispatcher: ToolDispatcher,
        ctx: RunContext,
        limits: Limits,
    ) -> ToolResult:
        agent = self.agent
        try:
            problems = argument_problems(tool.parameters, call.arguments)
        except ToolSchemaError as err:  # one line: the schema is the tool's fault, not the run's
            log.warning("tool %s cannot be called: %s", call.name, err)
            return ToolResult(f"tool {call.name} cannot be called: {err}", True)
        if problems:
            return ToolResult(f"invalid arguments for {call.name}: {'; '.join(problems)}", True)

        settings = agent.tool_config.get(call.name) if agent is not None else None
        timeout = (
            (settings.timeout_secs if settings else None) or tool.timeout or limits.tool_timeout
        )
        retry = settings.retry if settings else None
        attempt = 0
        while True:
            result = await self._run_once(dispatcher, call, ctx, timeout)
            failed = result.is_error and result.meta.get("exception")
            if not failed or retry is None or attempt >= retry.max_retries:
                return result
            attempt += 1
            log.info("retrying %s (attempt %d) after: %s", call.name, attempt, result.content)
            await asyncio.sleep(retry.delay(attempt))

    async def _run_once(
        self, dispatcher: ToolDispatcher, call: ToolCall, ctx: RunContext, timeout: float
    ) -> ToolResult:
        try:
            async with asyncio.timeout(timeout):
                result = await dispatcher.dispatch(call, ctx)
        except TimeoutError:
            return ToolResult(
                f"tool {call.name} timed out after {timeout:g} s",
                True,
                meta={"exception": "timeout"},
            )
        except asyncio.CancelledError:
            raise
        except Exception as err:  # one line per failed attempt; the traceback only with -vv
            log.warning("tool %s raised %s: %s", call.name, type(err).__name__, err)
            log.debug("traceback of tool %s", call.name, exc_info=err)
            return ToolResult(
                f"tool {call.name} failed: {type(err).__name__}: {err}",
                True,
                meta={"exception": type(err).__name__},
            )
        if not isinstance(result, ToolResult):
            return ToolResult(
                f"tool {call.name} returned {type(result).__name__}, not a ToolResult", True
            )
        return result
