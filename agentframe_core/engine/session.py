"""The agent loop: `Session.run()` answers everything pending, calling tools until done.

Words: a *run* answers what is pending, from claiming it to a typed `Outcome`; a *turn* is one
model call and the tool calls it asks for; `limits.max_turns` bounds the turns of a run.

A run: claim what is pending (coalescing everything that arrived while the model was away) ->
let plugins drop stale notifications -> collect the tools and write the system prompt -> turns
until one ends the run. A turn: build the context -> call the model (streaming) -> read its
reply -> persist it -> answer, or run its tool calls. The way a run ended is a typed `Outcome`,
never an exception buried in a log.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from functools import partial
from pathlib import Path
from typing import Any, TypeGuard

from ..contract.definition import AgentDefinition
from ..contract.errors import AgentframeError
from ..contract.hookspecs import MAX_STOP_CONTINUES
from ..contract.llm import Completion, CompletionRequest, Usage
from ..contract.model import Compaction, Entry, EntryKind, Message, ToolCall, now_ns
from ..contract.protocols import BudgetedBuilder, ExportableStore, RunContext, Stack, Store
from ..contract.questions import QuestionCallback
from ..contract.reports import CompactionReport, RetrievalReport
from ..contract.runtimehooks import runtime_verdicts
from ..contract.tools import ToolResult
from ..support.turnlease import SessionDeletedError, hold_turn, new_holder, reply_to
from . import telemetry
from .budget import estimated_tokens, over_budget_message
from .calling import ModelReply, ToolCalling, tool_calling
from .guards import RepeatGuard, RequirementReminder, note
from .output import OutputInvalid, OutputSpec
from .render import DROPPED_NOTIFICATIONS
from .requestview import log_reply, log_request
from .retrieval import place_retrieved, retrieved_context
from .toolbox import Toolbox, ToolCallRecord

__all__ = ["Outcome", "RunResult", "Session"]

log = logging.getLogger("agentframe.session")

TokenCallback = Callable[[str], Any]
ToolCallback = Callable[[ToolCallRecord], Any]
CompactionCallback = Callable[[CompactionReport], Any]
EventCallback = Callable[[str, dict[str, Any]], Any]


class Outcome(StrEnum):
    COMPLETED = "completed"  # the model answered without calling a tool
    TERMINAL_TOOL = "terminal_tool"  # a terminal tool ran; its result is the reply
    MAX_TURNS = "max_turns"  # the model-call budget ran out
    REPEATING = "repeating"  # the same calls and results, over and over
    PARSE_ERRORS = "parse_errors"  # a text-tools model kept sending malformed JSON
    REQUIREMENT_UNMET = "requirement_unmet"  # the agent's required tool was never called
    UNABLE = "unable"  # the model said it cannot do the task (report_inability); reply: why
    TRUNCATED = "truncated"  # the model's tool call kept being cut at its token limit
    BLOCKED = "blocked"  # a runtime hook refused the prompt or stopped the run; reply: why
    INVALID_OUTPUT = "invalid_output"  # the answer never matched the output: output_errors


@dataclass(slots=True)
class RunResult:
    """How one run ended, what it answered, and what it cost."""

    session_id: str
    outcome: Outcome
    reply: str
    #: Model calls made by this run.
    turns: int
    tool_calls: list[ToolCallRecord] = field(default_factory=list)
    #: Tokens billed by this run, and by the whole session so far.
    usage: Usage = field(default_factory=Usage)
    session_usage: Usage = field(default_factory=Usage)
    compactions: list[CompactionReport] = field(default_factory=list)
    retrievals: list[RetrievalReport] = field(default_factory=list)
    claimed: int = 0
    #: True when another run (another process) claimed and answered this run's message while
    #: this one waited for the turn: `reply` is that turn's answer, and `turns` is 0.
    coalesced: bool = False
    #: This run's id (on its trace spans as `agentframe.run.id`).
    run_id: str = ""
    #: The tokens of the last reply when the model stopped it at its token limit (finish
    #: reason "length"; 0 when the backend did not count them), else None.
    cut_tokens: int | None = None
    #: (prompt tokens, budget) of the first prompt of this run over the context builder's
    #: budget (a `BudgetedBuilder` that could not make it fit), else None.
    over_budget: tuple[int, int] | None = None
    #: The validated final answer when the run asked for a typed output (`run(output=)`).
    output: Any = None
    #: Why the last answer was not a valid output (the run ended `invalid_output`).
    output_errors: list[str] = field(default_factory=list)
    _last_usage: Usage = field(default_factory=Usage, repr=False)
    _last_messages: list[Message] = field(default_factory=list, repr=False)

    @property
    def window_tokens(self) -> int:
        """Size of the active window: the last call's prompt and reply (estimated at four
        characters a token when the backend reports nothing)."""
        if self._last_usage.prompt_tokens:
            return self._last_usage.total_tokens
        chars = sum(len(m.content) for m in self._last_messages) + len(self.reply)
        return chars // 4

    @property
    def cached_tokens(self) -> int:
        return self.usage.cached_tokens

    @property
    def children_usage(self) -> Usage:
        """Tokens the run's tools billed on its behalf (e.g. sub-agents), as each tool
        result's `meta["usage"]` reports them; not part of `usage`."""
        total = Usage()
        for record in self.tool_calls:
            total += Usage.from_dict(record.result.meta.get("usage"))
        return total

    @property
    def total_usage(self) -> Usage:
        """The run's own tokens and its tools'."""
        return self.usage + self.children_usage


class AdapterProtocolError(AgentframeError):
    """An adapter broke its contract (e.g. a stream without a final Completion)."""


@dataclass(slots=True)
class _Run:
    """The state of one run, handed from step to step."""

    ctx: RunContext
    toolbox: Toolbox
    calling: ToolCalling
    system: str
    max_turns: int
    result: RunResult
    repeats: RepeatGuard
    reminder: RequirementReminder
    on_token: TokenCallback | None
    on_tool: ToolCallback | None
    output: OutputSpec | None = None
    parse_errors: int = 0
    #: Invalid answers whose errors were sent back (at most `output.retries`).
    output_retries: int = 0
    #: Times an `agentframe_run_stopping` hook made this run go on.
    continued: int = 0
    done: bool = False
    #: When this turn's request was built: what the model call produces is stored at this
    #: time, so arrivals claimed at the next boundary (created later) sort after it.
    boundary: int = 0

    def finish(self, outcome: Outcome, reply: str | None = None) -> None:
        self.result.outcome, self.done = outcome, True
        if reply is not None:
            self.result.reply = reply


class Session:
    """One conversation, driven by a stack and optionally an agent definition."""

    def __init__(
        self,
        stack: Stack,
        session_id: str | None = None,
        *,
        agent: AgentDefinition | None = None,
        cwd: Path | None = None,
        system: str | None = None,
        parent: str | None = None,
    ) -> None:
        self.stack = stack
        #: The session whose tool started this one as a sub-agent (`RunContext.parent`).
        self.parent = parent
        self._started = False
        self.id = session_id or uuid.uuid4().hex
        self.agent = agent
        self.cwd = cwd or Path.cwd()
        self._system = system
        self._system_cache: tuple[tuple[tuple[str, str], ...], str] | None = None
        self._session_usage: Usage | None = None

    # -- input -------------------------------------------------------------------------------

    async def send(self, text: str, *, origin: Any = None) -> Entry:
        """Queue a user message; the next run answers it (with anything else queued)."""
        entry = Entry(kind=EntryKind.USER, content=text, origin=origin)
        await self.stack.store.enqueue(self.id, entry)
        return entry

    async def inject(self, entry: Entry) -> None:
        """Append an entry to this session's log, visible from the next model call."""
        await self.stack.store.append(self.id, entry)

    # -- a run -------------------------------------------------------------------------------

    async def run(
        self,
        prompt: str | None = None,
        *,
        on_token: TokenCallback | None = None,
        on_tool: ToolCallback | None = None,
        on_compaction: CompactionCallback | None = None,
        on_event: EventCallback | None = None,
        on_question: QuestionCallback | None = None,
        output: OutputSpec | None = None,
    ) -> RunResult:
        """Answer `prompt` (when given) and everything else pending, to an Outcome.

        Claim what is pending -> drop stale notifications -> prepare (tools, system prompt,
        tool calling) -> turns until one ends the run -> report. `on_event(kind, data)`
        hears progress that parts report through `RunContext.emit` (e.g. sub-agents);
        `on_question` answers the questions parts ask through `RunContext.ask`; `output`
        asks for a typed final answer (`RunResult.output`).
        """
        run_id, agent_name = uuid.uuid4().hex, self.agent.name if self.agent else None
        ctx = self._context_of_run(on_compaction, on_event, on_question, run_id)
        refused, added = await self._hooks_before(ctx, prompt)
        if refused is not None:
            return RunResult(self.id, Outcome.BLOCKED, refused, 0, run_id=run_id)
        message = await self.send(prompt) if prompt is not None else None
        if message is not None and added:
            await self.stack.store.enqueue(self.id, _hook_note(added))
        ttl = self.stack.limits.turn_lease_seconds
        async with (
            telemetry.run_span(self.stack, self.id, run_id, agent_name),
            hold_turn(self.stack.store, self.id, new_holder(), ttl),
        ):
            boundary = now_ns()
            claimed = await self._claim(boundary)
            answered = await self._answered_elsewhere(message) if message else None
            if answered is not None:
                answered.run_id = run_id
                return answered
            await self._drop_stale_notifications(ctx)
            run = await self._prepare(ctx, claimed, on_token, on_tool, output)
            run.boundary = boundary
            while not run.done:
                await self._turn(run)
            return self._report(run)

    async def end(self, reason: str = "other") -> None:
        """The conversation is over: the `agentframe_session_ended` hooks hear `reason`."""
        ctx = self._context_of_run(None, None, None, "")
        await runtime_verdicts(self.stack.hooks, "agentframe_session_ended", ctx=ctx, reason=reason)

    def _context_of_run(
        self,
        on_compaction: CompactionCallback | None,
        on_event: EventCallback | None,
        on_question: QuestionCallback | None,
        run_id: str,
    ) -> RunContext:
        return RunContext(
            self.id,
            self.stack,
            self.agent,
            on_compaction=on_compaction,
            on_event=on_event,
            on_question=on_question,
            run_id=run_id,
            parent=self.parent,
        )

    async def _hooks_before(self, ctx: RunContext, prompt: str | None) -> tuple[str | None, str]:
        """The session-start hooks (on this object's first run; their context is queued at
        once) and the prompt's: (a reason to refuse the run, or None; context for after the
        prompt)."""
        hooks = self.stack.hooks
        if hooks is None:
            return None, ""
        if not self._started and hooks.agentframe_session_started.get_hookimpls():
            self._started = True
            resumed = bool(await self.stack.store.context(self.id))
            started = await runtime_verdicts(
                hooks, "agentframe_session_started", "context", ctx=ctx, resumed=resumed
            )
            stop = next((v.stop or v.block for v in started if v.stop or v.block), None)
            if stop:
                return stop, ""
            if added := "\n\n".join(v.context for v in started if v.context):
                await self.stack.store.enqueue(self.id, _hook_note(added))
        if prompt is None:
            return None, ""
        verdicts = await runtime_verdicts(
            hooks, "agentframe_prompt_submitted", ctx=ctx, prompt=prompt
        )
        refused = next((v.block or v.stop for v in verdicts if v.block or v.stop), None)
        return refused, "\n\n".join(v.context for v in verdicts if v.context)

    async def _answered_elsewhere(self, message: Entry) -> RunResult | None:
        """With the lease held: the result to report if a concurrent run (now ended) claimed
        and answered `message`; None if this run must answer it."""
        context = await self.stack.store.context(self.id)
        reply = reply_to(context, message)
        if reply is not None:
            return RunResult(self.id, Outcome.COMPLETED, reply, 0, coalesced=True)
        if not context:  # neither visible nor pending any more: the session was deleted
            raise SessionDeletedError(f"session {self.id!r} was deleted before its turn")
        return None

    async def _prepare(
        self,
        ctx: RunContext,
        claimed: int,
        on_token: TokenCallback | None,
        on_tool: ToolCallback | None,
        output: OutputSpec | None = None,
    ) -> _Run:
        """The run's tools, system prompt and tool-calling strategy, and its budgets."""
        if self._session_usage is None:
            self._session_usage = await self._usage_so_far()
        agent, limits = self.agent, self.stack.limits
        toolbox = await Toolbox.collect(self.stack.tools, ctx)
        calling = tool_calling(self.stack.adapter.capabilities, toolbox, output)
        with telemetry.step_span(self.stack, "prompt", "prompt system"):
            system = calling.system_prompt(await self._system_prompt(toolbox))
        retrieved = await self._retrieved(ctx) if self.stack.retrievers else ""
        ctx.wire = partial(_on_the_wire, calling, retrieved)
        return _Run(
            ctx=ctx,
            toolbox=toolbox,
            calling=calling,
            system=system,
            max_turns=(agent.max_turns if agent else None) or limits.max_turns,
            result=RunResult(self.id, Outcome.COMPLETED, "", 0, claimed=claimed),
            repeats=RepeatGuard(limits.max_repeats),
            reminder=RequirementReminder(agent.completion_requirement if agent else None),
            on_token=on_token,
            on_tool=on_tool,
            output=output,
        )

    def _report(self, run: _Run) -> RunResult:
        result = run.result
        result.run_id = run.ctx.run_id
        telemetry.run_ended(self.stack, result.outcome, result.usage, result.turns)
        result.compactions = run.ctx.compactions
        result.retrievals = run.ctx.retrievals
        assert self._session_usage is not None
        self._session_usage = self._session_usage + result.usage
        result.session_usage = self._session_usage
        return result

    # -- a turn ------------------------------------------------------------------------------

    async def _turn(self, run: _Run) -> None:
        """Build the context -> call the model -> read its reply -> persist it -> answer, or
        run the tool calls. Sets `run.done` when this turn ends the run."""
        if run.result.turns >= run.max_turns:
            run.finish(Outcome.MAX_TURNS)
            return
        if run.result.turns:  # what arrived while the model or a tool was busy joins now
            run.boundary = now_ns()
            run.result.claimed += await self._claim(run.boundary)
        messages = await self._context(run)
        completion = await self._call_model(run, messages)
        reply = run.calling.read(completion)
        cut = completion.finish_reason == "length"
        run.result.cut_tokens = completion.usage.completion_tokens if cut else None
        if reply.error is not None:
            await self._unusable_reply(run, reply, completion)
            return
        calls = tuple(run.toolbox.to_canonical(c) for c in reply.calls)
        await self._persist_reply(reply.content, calls, completion, run.boundary)
        if calls:
            await self._run_tools(run, calls)
            if run.toolbox.take_grown():  # tool selection shows more tools from now on
                run.system = run.calling.system_prompt(await self._system_prompt(run.toolbox))
        else:
            await self._answered(run, reply.content)

    async def _claim(self, at: int) -> int:
        return await self.stack.store.claim_pending(self.id, at)

    async def _context(self, run: _Run) -> list[Message]:
        """The session as the model will read it: built, tool names on the wire, and
        flattened to text where tools are text."""
        with telemetry.step_span(self.stack, "prompt", "prompt context"):
            compacted, started = len(run.ctx.compactions), time.time_ns()
            messages = run.ctx.wire(await self.stack.context.build(run.ctx, run.system))
            for report in run.ctx.compactions[compacted:]:
                telemetry.compaction_span(self.stack, started, report)
        return messages

    async def _call_model(self, run: _Run, messages: list[Message]) -> Completion:
        result, agent = run.result, self.agent
        request = CompletionRequest(
            messages,
            tools=run.calling.tools,
            model=agent.adapter_model if agent else None,
            response_schema=run.calling.response_schema,
            metadata={
                "session_id": self.id,
                "context_label": f"{agent.name if agent else 'agent'}:{self.id}:{result.turns}",
            },
        )
        adapter = self.stack.adapter
        log_request(request, result.turns + 1)
        with telemetry.chat_span(self.stack, request, run.ctx.run_id) as traced:
            if run.on_token is None or not adapter.capabilities.streaming:
                completion = await adapter.complete(request)
            else:  # streamed to `on_token`, through the strategy's filter
                completion = await self._stream(request, run.calling.token_sink(run.on_token))
            traced.done(completion)
        result.turns += 1
        log_reply(completion, result.turns)
        result.usage += completion.usage
        result._last_usage, result._last_messages = completion.usage, messages
        await self._check_budget(run, request, completion)
        return completion

    async def _check_budget(
        self, run: _Run, request: CompletionRequest, completion: Completion
    ) -> None:
        """Warn, once a run, when the prompt was over the context builder's budget (what the
        backend counted, else an estimate): the builder could not make it fit."""
        builder = self.stack.context
        if run.result.over_budget is not None or not isinstance(builder, BudgetedBuilder):
            return
        budget = await builder.budget(run.ctx)
        texts = (m.content for m in request.messages)
        sent = completion.usage.prompt_tokens or estimated_tokens(texts, request.tools)
        if sent > budget:
            run.result.over_budget = (sent, budget)
            name = repr(self.stack.config.context.name) if self.stack.config else "in use"
            log.warning("%s", over_budget_message(sent, budget, name, "the prompt took"))

    async def _stream(self, request: CompletionRequest, show: TokenCallback) -> Completion:
        adapter = self.stack.adapter
        final: Completion | None = None
        async for item in adapter.stream(request):
            if isinstance(item, str):
                show(item)
            else:
                final = item
        if final is None:
            raise AdapterProtocolError(
                f"{type(adapter).__name__}.stream() ended without a Completion"
            )
        return final

    async def _unusable_reply(self, run: _Run, reply: ModelReply, completion: Completion) -> None:
        """A text tool call that could not be parsed: ask again, a bounded number of times.
        A reply cut at the token limit ends as TRUNCATED, without the broken text as reply."""
        cut = run.result.cut_tokens is not None
        if run.parse_errors >= self.stack.limits.max_parse_errors:
            if cut:
                run.finish(Outcome.TRUNCATED, "")
            else:
                run.finish(Outcome.PARSE_ERRORS, reply.content)
            return
        run.parse_errors += 1
        await self._persist_reply(reply.content, (), completion, run.boundary, tag="parse-error")
        why = (
            "was cut at the token limit before it ended"
            if cut
            else f"could not be used: {reply.error}"
        )
        await self.stack.store.append(
            self.id,
            note(
                f"Your last reply {why}. Reply with "
                'one JSON object {"tool": "<name>", "args": {...}}, or in plain text'
                + (", and keep it short." if cut else "."),
                "parse-error",
            ),
        )

    async def _answered(self, run: _Run, content: str) -> None:
        """A reply without tool calls ends the run, unless messages arrived meanwhile (they
        are answered in this run) or the agent's required tool was not called yet."""
        run.result.reply = content
        run.repeats.reset()
        arrived = await self._claim(now_ns())
        if arrived:
            run.result.claimed += arrived
            return
        if run.reminder.unmet:
            if run.reminder.exhausted:
                run.finish(Outcome.REQUIREMENT_UNMET)
            else:
                await self.stack.store.append(self.id, await run.reminder.next())
            return
        if run.output is not None and not await self._output_accepted(run, run.output, content):
            return
        if await self._stop_overruled(run, content):
            return
        run.finish(Outcome.COMPLETED)

    async def _output_accepted(self, run: _Run, output: OutputSpec, content: str) -> bool:
        """Whether the answer is a valid output (kept in `result.output`). An invalid one gets
        its errors back for another try, `output.retries` times; then the run ends
        INVALID_OUTPUT with them."""
        try:
            run.result.output = await output.check(content)
        except OutputInvalid as invalid:
            run.result.output_errors = invalid.errors
            if run.output_retries >= output.retries:
                run.finish(Outcome.INVALID_OUTPUT)
                return False
            run.output_retries += 1
            problems = "\n".join(f"- {error}" for error in invalid.errors)
            await self.stack.store.append(
                self.id,
                note(
                    f"Your answer is not valid:\n{problems}\nReply again with the corrected "
                    "answer only, in the required JSON form.",
                    "invalid-output",
                ),
            )
            return False
        run.result.output_errors = []
        return True

    async def _stop_overruled(self, run: _Run, reply: str) -> bool:
        """True when an `agentframe_run_stopping` hook gives a reason to go on (bounded by
        `MAX_STOP_CONTINUES`): the model reads it next turn. A `stop` ends the run blocked."""
        if run.continued >= MAX_STOP_CONTINUES:
            return False
        verdicts = await runtime_verdicts(
            self.stack.hooks,
            "agentframe_run_stopping",
            ctx=run.ctx,
            reply=reply,
            continued=run.continued,
        )
        stop = next((v.stop for v in verdicts if v.stop), None)
        if stop:
            run.finish(Outcome.BLOCKED, stop)
            return True
        reasons = [v.block for v in verdicts if v.block]
        if not reasons:
            return False
        run.continued += 1
        await self.stack.store.append(self.id, note("\n\n".join(reasons), "stop-hook"))
        return True

    async def _run_tools(self, run: _Run, calls: tuple[ToolCall, ...]) -> None:
        """Run the reply's tool calls; a terminal tool ends the run, and so does a loop."""
        records = await self._dispatch(calls, run.toolbox, run.ctx, run.on_tool, run.boundary)
        run.result.tool_calls.extend(records)
        run.reminder.see(records)
        terminal = next(
            (
                r
                for r in records
                if r.result.outcome
                or (run.toolbox.is_terminal(r.call.name) and not r.result.is_error)
            ),
            None,
        )
        if terminal is not None:
            run.finish(_ending(terminal), terminal.result.content)
            return
        run.repeats.see(records)
        if run.repeats.stuck:
            run.finish(Outcome.REPEATING)
            return
        warning = run.repeats.warning(records)
        if warning is not None:
            await self.stack.store.append(self.id, warning)

    # -- steps -------------------------------------------------------------------------------

    async def _persist_reply(
        self,
        content: str,
        calls: tuple[ToolCall, ...],
        completion: Completion,
        boundary: int,
        tag: str | None = None,
    ) -> None:
        """Store the reply and its calls at the boundary its request was built at."""
        store, usage = self.stack.store, completion.usage
        meta: dict[str, Any] = {}
        if usage.total_tokens:
            meta["usage"] = usage.to_dict()
        reply = Entry(
            kind=EntryKind.ASSISTANT, content=content, tag=tag, meta=meta, created_at=boundary
        )
        await store.append(self.id, reply)
        for call in calls:
            await store.append(
                self.id,
                Entry(
                    kind=EntryKind.TOOL_CALL,
                    content=json.dumps(call.arguments, ensure_ascii=False, default=str),
                    tool_call_id=call.id,
                    tool_name=call.name,
                    created_at=boundary,
                ),
            )

    async def _dispatch(
        self,
        calls: tuple[ToolCall, ...],
        toolbox: Toolbox,
        ctx: RunContext,
        on_tool: ToolCallback | None,
        boundary: int,
    ) -> list[ToolCallRecord]:
        """Run the calls of one reply (bounded concurrency), persisting each result as it
        lands. If the run is cancelled or anything fails, every call without a persisted
        result gets an 'interrupted' one, so no tool call is ever left without its result."""
        limits, store = self.stack.limits, self.stack.store
        records: dict[str, ToolCallRecord] = {}
        persisted: set[str] = set()
        gate = asyncio.Semaphore(limits.max_parallel_tools) if len(calls) > 1 else None

        async def one(call: ToolCall) -> None:
            if gate is None:
                record = await toolbox.execute(call, ctx, limits)
            else:
                async with gate:
                    record = await toolbox.execute(call, ctx, limits)
            records[call.id] = record
            await store.append(self.id, _result_entry(record, boundary))
            persisted.add(call.id)
            if on_tool is not None:
                try:
                    on_tool(record)
                except Exception:
                    log.exception("the on_tool callback raised; the run goes on")

        try:
            if len(calls) == 1:
                await one(calls[0])
            else:
                async with asyncio.TaskGroup() as group:
                    for call in calls:
                        group.create_task(one(call))
        except BaseException as error:
            for call in calls:
                if call.id not in persisted:
                    with contextlib.suppress(Exception):
                        await store.append(self.id, _result_entry(_interrupted(call), boundary))
            if isinstance(error, BaseExceptionGroup):
                raise _first(error) from error
            raise
        return [records[call.id] for call in calls]

    async def _system_prompt(self, toolbox: Toolbox) -> str:
        if self._system is not None:
            return self._system
        names = toolbox.visible_names()
        key = tuple(sorted(names.items()))
        if self._system_cache is None or self._system_cache[0] != key:
            from .promptcache import cached_system_prompt

            self._system_cache = (key, cached_system_prompt(self.agent, names, cwd=self.cwd))
        return self._system_cache[1]

    async def _retrieved(self, ctx: RunContext) -> str:
        entries = await self.stack.store.context(self.id)
        query = next((e.content for e in reversed(entries) if e.kind is EntryKind.USER), "")
        if not query:
            return ""
        return await retrieved_context(query, ctx)

    async def _drop_stale_notifications(self, ctx: RunContext) -> None:
        hooks = self.stack.hooks
        if hooks is None or not hooks.agentframe_prepare_context.get_hookimpls():
            return
        entries = await self.stack.store.context(self.id)
        notifications = [e for e in entries if e.kind is EntryKind.NOTIFICATION]
        if not notifications:
            return
        answers = hooks.agentframe_prepare_context(ctx=ctx, entries=notifications)
        known = {e.id for e in notifications}
        drop = {i for ids in answers if ids for i in ids} & known
        if drop:
            marker = Entry(
                kind=EntryKind.COMPACTION,
                tag=DROPPED_NOTIFICATIONS,
                content=f"{len(drop)} notification(s) no longer relevant were dropped",
            )
            await self.stack.store.compact(self.id, Compaction(marker, frozenset(drop)))

    async def _usage_so_far(self) -> Usage:
        """Tokens billed before this Session object: compacted-away replies count too, where
        the store can show them."""
        store = self.stack.store
        if _exportable(store):
            entries = [record.entry for record in await store.history(self.id)]
        else:
            entries = await store.context(self.id)
        total = Usage()
        for entry in entries:
            if entry.kind is EntryKind.ASSISTANT:
                total += Usage.from_dict(entry.meta.get("usage"))
        return total


_EXPORTABLE: dict[type, bool] = {}


def _on_the_wire(calling: ToolCalling, retrieved: str, built: list[Message]) -> list[Message]:
    """Built messages as the run sends them: the retrieved snippets in front of the latest
    user message, tool names on the wire, tools as text where they are text."""
    return calling.wire_messages(place_retrieved(built, retrieved))


def _hook_note(text: str) -> Entry:
    """Context a runtime hook adds for the model (session start, a prompt)."""
    return Entry(kind=EntryKind.NOTIFICATION, content=text, tag="hook-context")


def _exportable(store: Store) -> TypeGuard[ExportableStore]:
    """`isinstance(store, ExportableStore)`, remembered per class: a Protocol check costs tens
    of microseconds, and a new Session asks once."""
    known = _EXPORTABLE.get(type(store))
    if known is None:
        known = _EXPORTABLE[type(store)] = isinstance(store, ExportableStore)
    return known


def _ending(record: ToolCallRecord) -> Outcome:
    """The outcome a terminal call ends the run with: the one its result names, if valid."""
    named = record.result.outcome
    if named is None:
        return Outcome.TERMINAL_TOOL
    try:
        return Outcome(named)
    except ValueError:
        log.warning("tool %s named an unknown outcome %r", record.call.name, named)
        return Outcome.TERMINAL_TOOL


def _interrupted(call: ToolCall) -> ToolCallRecord:
    result = ToolResult("interrupted before it finished", True, meta={"cancelled": True})
    return ToolCallRecord(call, result, 0.0)


def _first(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The error to raise for a failed group of tool calls: the first that is not a
    cancellation (the others were cancelled because of it)."""
    leaves: list[BaseException] = []
    pending: list[BaseException] = [group]
    while pending:
        error = pending.pop(0)
        if isinstance(error, BaseExceptionGroup):
            pending.extend(error.exceptions)
        else:
            leaves.append(error)
    return next((e for e in leaves if not isinstance(e, asyncio.CancelledError)), leaves[0])


def _result_entry(record: ToolCallRecord, boundary: int) -> Entry:
    result = record.result
    meta: dict[str, Any] = {}
    if result.is_error:
        meta["is_error"] = True
    if result.pending:
        meta["pending"] = True
    if result.meta:
        meta.update(result.meta)
    if result.outcome:
        meta["outcome"] = result.outcome
    content = result.content
    if result.pending and not content:
        content = "[pending] this call is running in the background; its result will arrive later"
    return Entry(
        kind=EntryKind.TOOL_RESULT,
        content=content,
        tool_call_id=record.call.id,
        tool_name=record.call.name,
        meta=meta,
        created_at=boundary,
    )
