"""The agent loop: `Session.turn()` answers everything pending, calling tools until done.

One turn: claim what is pending (coalescing everything that arrived while the model was
away) -> let plugins drop stale notifications -> build the context -> call the model
(streaming) -> persist the reply -> run its tool calls -> repeat until the model answers
without tools, a terminal tool fires, or a limit is reached. The way it ended is a typed
`Outcome`, never an exception buried in a log.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from .agent import AgentDefinition
from .compaction import CompactionReport
from .context import RunContext
from .errors import AgentframeError
from .llm import Completion, CompletionRequest, Usage
from .model import Compaction, Entry, EntryKind, Message, ToolCall, now_ns
from .render import DROPPED_NOTIFICATIONS
from .stack import Stack
from .texttools import parse_reply, textualize, tools_prompt, union_schema
from .toolbox import Toolbox, ToolCallRecord, _Validators
from .tools import ToolResult
from .turnlease import SessionDeletedError, hold_turn, new_holder, reply_to

__all__ = ["Outcome", "Session", "TurnResult"]

log = logging.getLogger("agentframe.session")

TokenCallback = Callable[[str], Any]
ToolCallback = Callable[[ToolCallRecord], Any]


class Outcome(StrEnum):
    COMPLETED = "completed"  # the model answered without calling a tool
    TERMINAL_TOOL = "terminal_tool"  # a terminal tool ran; its result is the reply
    MAX_TURNS = "max_turns"  # the model-call budget ran out
    REPEATING = "repeating"  # the same calls and results, over and over
    PARSE_ERRORS = "parse_errors"  # a text-tools model kept sending malformed JSON
    REQUIREMENT_UNMET = "requirement_unmet"  # the agent's required tool was never called


@dataclass(slots=True)
class TurnResult:
    session_id: str
    outcome: Outcome
    reply: str
    turns: int
    tool_calls: list[ToolCallRecord] = field(default_factory=list)
    #: Tokens billed by this turn, and by the whole session so far.
    usage: Usage = field(default_factory=Usage)
    session_usage: Usage = field(default_factory=Usage)
    compactions: list[CompactionReport] = field(default_factory=list)
    claimed: int = 0
    #: True when another run (another process) claimed and answered this run's message while
    #: this one waited for the turn: `reply` is that turn's answer, and `turns` is 0.
    coalesced: bool = False
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

    def to_json(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "outcome": self.outcome.value,
            "reply": self.reply,
            "turns": self.turns,
            "coalesced": self.coalesced,
            "tool_calls": [
                {
                    "id": r.call.id,
                    "name": r.call.name,
                    "arguments": r.call.arguments,
                    "result": r.result.content,
                    "is_error": r.result.is_error,
                    "seconds": round(r.seconds, 6),
                }
                for r in self.tool_calls
            ],
            "usage": {
                "prompt_tokens": self.usage.prompt_tokens,
                "completion_tokens": self.usage.completion_tokens,
                "cached_tokens": self.usage.cached_tokens,
                "session_total_tokens": self.session_usage.total_tokens,
                "window_tokens": self.window_tokens,
            },
            "compactions": [
                {
                    "summary": c.summary,
                    "subsumed": c.subsumed,
                    "tokens_before": c.tokens_before,
                    "tokens_after": c.tokens_after,
                }
                for c in self.compactions
            ],
        }


class AdapterProtocolError(AgentframeError):
    """An adapter broke its contract (e.g. a stream without a final Completion)."""


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
    ) -> None:
        self.stack = stack
        self.id = session_id or uuid.uuid4().hex
        self.agent = agent
        self.cwd = cwd or Path.cwd()
        self._system = system
        self._system_cache: tuple[tuple[tuple[str, str], ...], str] | None = None
        self._validators = _Validators()
        self._session_usage: Usage | None = None
        self._turn_task: asyncio.Task[Any] | None = None

    # -- input -------------------------------------------------------------------------------

    async def send(self, text: str, *, origin: Any = None) -> Entry:
        """Queue a user message; the next turn answers it (with anything else queued)."""
        entry = Entry(kind=EntryKind.USER, content=text, origin=origin)
        await self.stack.store.enqueue(self.id, entry)
        return entry

    async def inject(self, entry: Entry) -> None:
        """Append an entry to this session's log, visible from the next model call."""
        await self.stack.store.append(self.id, entry)

    async def run(
        self,
        prompt: str,
        *,
        on_token: TokenCallback | None = None,
        on_tool: ToolCallback | None = None,
    ) -> TurnResult:
        """Send one user message and answer it (and whatever else was queued), or report the
        answer of the concurrent turn that claimed it while this run waited for the turn."""
        message = await self.send(prompt)
        async with self._turn_lease():
            claimed = await self.stack.store.claim_pending(self.id, now_ns())
            answered = await self._answered_elsewhere(message)
            if answered is not None:
                return answered
            return await self._turn(on_token, on_tool, claimed)

    # -- the loop ----------------------------------------------------------------------------

    async def turn(
        self,
        *,
        on_token: TokenCallback | None = None,
        on_tool: ToolCallback | None = None,
    ) -> TurnResult:
        """Answer everything pending, holding the session's turn lease while it runs."""
        async with self._turn_lease():
            return await self._turn(on_token, on_tool)

    @contextlib.asynccontextmanager
    async def _turn_lease(self) -> AsyncIterator[None]:
        """The session's turn lease (`turnlease`), taken once per task (`run` -> `turn`)."""
        task = asyncio.current_task()
        if task is not None and task is self._turn_task:
            yield
            return
        ttl = self.stack.limits.turn_lease_seconds
        async with hold_turn(self.stack.store, self.id, new_holder(), ttl):
            self._turn_task = task
            try:
                yield
            finally:
                self._turn_task = None

    async def _answered_elsewhere(self, message: Entry) -> TurnResult | None:
        """With the lease held: the result to report if a concurrent turn (now ended) claimed
        and answered `message`; None if this run must answer it."""
        context = await self.stack.store.context(self.id)
        reply = reply_to(context, message)
        if reply is not None:
            return TurnResult(self.id, Outcome.COMPLETED, reply, 0, coalesced=True)
        if not context:  # neither visible nor pending any more: the session was deleted
            raise SessionDeletedError(f"session {self.id!r} was deleted before its turn")
        return None

    async def _turn(
        self,
        on_token: TokenCallback | None,
        on_tool: ToolCallback | None,
        claimed_before: int = 0,
    ) -> TurnResult:
        stack, agent = self.stack, self.agent
        store, limits = stack.store, stack.limits
        # What a model call produces (its reply, calls and their results) is stored at the
        # boundary its request was built at: arrivals claimed at the next boundary (created
        # while the model or tools were busy, so later) are then ordered after it, as the
        # contract says (they join at the next model call, after the reply in flight).
        boundary = now_ns()
        claimed = claimed_before + await store.claim_pending(self.id, boundary)
        ctx = RunContext(self.id, stack, agent)
        await self._drop_stale_notifications(ctx)
        if self._session_usage is None:
            self._session_usage = await self._usage_so_far()

        toolbox = await Toolbox.collect(stack.tools, ctx, self._validators)
        caps = stack.adapter.capabilities
        native = caps.native_tools
        text_tools = not native and bool(toolbox.specs)  # tools in the prompt, JSON replies
        system = await self._system_prompt(toolbox, ctx)
        schema = None
        if text_tools:
            system = f"{system}\n\n{tools_prompt(toolbox.specs, constrained=caps.json_schema)}"
            schema = union_schema(toolbox.specs) if caps.json_schema else None
        max_turns = (agent.max_turns if agent else None) or limits.max_turns
        requirement = agent.completion_requirement if agent else None
        model = agent.adapter_model if agent else None

        result = TurnResult(self.id, Outcome.COMPLETED, "", 0, claimed=claimed)
        called: set[str] = set()
        parse_errors = reminders = repeats = 0
        last_signature: tuple[Any, ...] | None = None
        while True:
            if result.turns >= max_turns:
                result.outcome = Outcome.MAX_TURNS
                break
            if result.turns:  # what arrived while the model or a tool was busy joins now
                boundary = now_ns()
                result.claimed += await store.claim_pending(self.id, boundary)
            messages = await stack.context.build(ctx, system)
            if toolbox.renames:
                messages = toolbox.to_wire(messages)
            if not native:
                messages = textualize(messages)
            request = CompletionRequest(
                messages,
                tools=toolbox.specs if native else [],
                model=model,
                response_schema=schema,
                metadata={
                    "session_id": self.id,
                    "context_label": f"{agent.name if agent else 'agent'}:{self.id}:{result.turns}",
                },
            )
            completion = await self._call_model(request, on_token, hide_json=text_tools)
            result.turns += 1
            result.usage += completion.usage
            result._last_usage, result._last_messages = completion.usage, messages

            content, calls = completion.content, completion.tool_calls
            if text_tools:
                parsed = parse_reply(content, constrained=schema is not None)
                if parsed.error is not None:
                    if parse_errors >= limits.max_parse_errors:
                        result.outcome, result.reply = Outcome.PARSE_ERRORS, content
                        break
                    parse_errors += 1
                    await self._persist_reply(content, (), completion, boundary, tag="parse-error")
                    await store.append(
                        self.id,
                        _note(
                            f"Your last reply could not be used: {parsed.error}. Reply with "
                            'one JSON object {"tool": "<name>", "args": {...}}, or in plain text.',
                            "parse-error",
                        ),
                    )
                    continue
                # the reply's text is the whole truth here: a text-tools adapter sends no calls
                if parsed.call is not None:
                    content, calls = "", (parsed.call,)
                else:
                    content, calls = parsed.answer or "", ()
            calls = tuple(toolbox.to_canonical(c) for c in calls)
            await self._persist_reply(content, calls, completion, boundary)

            if not calls:
                result.reply = content
                arrived = await store.claim_pending(self.id, now_ns())
                if arrived:  # sent while this answer was written: answer them in this run
                    result.claimed += arrived
                    continue
                if requirement is not None and requirement.tool not in called:
                    if reminders >= requirement.recovery.max_retries:
                        result.outcome = Outcome.REQUIREMENT_UNMET
                        break
                    reminders += 1
                    await asyncio.sleep(requirement.recovery.delay(reminders))
                    await store.append(self.id, _note(requirement.reminder, "reminder"))
                    continue
                result.outcome = Outcome.COMPLETED
                break

            records = await self._dispatch(calls, toolbox, ctx, on_tool, boundary)
            result.tool_calls.extend(records)
            called.update(r.call.name for r in records if not r.result.is_error)
            terminal = next(
                (r for r in records if toolbox.is_terminal(r.call.name) and not r.result.is_error),
                None,
            )
            if terminal is not None:
                result.outcome, result.reply = Outcome.TERMINAL_TOOL, terminal.result.content
                break
            signature = tuple(
                (
                    r.call.name,
                    json.dumps(r.call.arguments, sort_keys=True, default=str),
                    r.result.content,
                )
                for r in records
            )
            repeats = repeats + 1 if signature == last_signature else 1
            last_signature = signature
            if repeats >= limits.max_repeats:
                result.outcome = Outcome.REPEATING
                break
            if repeats == 2:  # small models often loop; say so once before giving up
                names = ", ".join(sorted({r.call.name for r in records}))
                await store.append(
                    self.id,
                    _note(
                        f"You already called {names} with these arguments and got the same "
                        "result. Do not call it again: answer with what you have.",
                        "repetition",
                    ),
                )

        result.compactions = ctx.compactions
        self._session_usage = self._session_usage + result.usage
        result.session_usage = self._session_usage
        return result

    # -- steps -------------------------------------------------------------------------------

    async def _call_model(
        self, request: CompletionRequest, on_token: TokenCallback | None, *, hide_json: bool
    ) -> Completion:
        adapter = self.stack.adapter
        if on_token is None or not adapter.capabilities.streaming:
            return await adapter.complete(request)
        final: Completion | None = None
        shown = _TokenFilter(on_token, hide_json)
        async for item in adapter.stream(request):
            if isinstance(item, str):
                shown.feed(item)
            else:
                final = item
        if final is None:
            raise AdapterProtocolError(
                f"{type(adapter).__name__}.stream() ended without a Completion"
            )
        return final

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
            meta["usage"] = {
                "prompt_tokens": usage.prompt_tokens,
                "completion_tokens": usage.completion_tokens,
                "cached_tokens": usage.cached_tokens,
            }
        await store.append(
            self.id,
            Entry(
                kind=EntryKind.ASSISTANT,
                content=content,
                tag=tag,
                meta=meta,
                created_at=boundary,
            ),
        )
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

    async def _system_prompt(self, toolbox: Toolbox, ctx: RunContext) -> str:
        if self._system is not None:
            base = self._system
        else:
            names = toolbox.visible_names()
            key = tuple(sorted(names.items()))
            if self._system_cache is None or self._system_cache[0] != key:
                from .promptcache import cached_system_prompt

                self._system_cache = (key, cached_system_prompt(self.agent, names, cwd=self.cwd))
            base = self._system_cache[1]
        if not self.stack.retrievers:
            return base
        return base + await self._retrieved(ctx)

    async def _retrieved(self, ctx: RunContext) -> str:
        entries = await self.stack.store.context(self.id)
        query = next((e.content for e in reversed(entries) if e.kind is EntryKind.USER), "")
        if not query:
            return ""
        budget = self.stack.limits.retrieval_budget_tokens
        found = await asyncio.gather(
            *(r.retrieve(query, ctx=ctx, budget_tokens=budget) for r in self.stack.retrievers)
        )
        snippets = [s for group in found for s in group]
        if not snippets:
            return ""
        body = "\n\n".join(f"[{s.source}]\n{s.text}" if s.source else s.text for s in snippets)
        return f"\n\n# Relevant context\n\n{body}"

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
        history = getattr(store, "history", None)  # ExportableStore (isinstance is slow)
        if history is not None:
            entries = [record.entry for record in await history(self.id)]
        else:
            entries = await store.context(self.id)
        total = Usage()
        for entry in entries:
            usage = entry.meta.get("usage") if entry.kind is EntryKind.ASSISTANT else None
            if isinstance(usage, dict):
                total += Usage(**{k: int(v) for k, v in usage.items() if k in _USAGE_KEYS})
        return total


_USAGE_KEYS = {"prompt_tokens", "completion_tokens", "cached_tokens"}


def _note(text: str, tag: str) -> Entry:
    return Entry(kind=EntryKind.USER, content=text, tag=tag)


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


class _TokenFilter:
    """Forwards streamed tokens to the user, except what is not for them in text-tools mode:
    a reply that is a JSON tool call is hidden, and of a constrained `{"answer": "..."}`
    reply only the answer's text is shown, decoded as it arrives."""

    _ANSWER = re.compile(r'\{\s*"answer"\s*:\s*"')

    def __init__(self, sink: TokenCallback, hide_json: bool) -> None:
        self.sink, self.hide_json = sink, hide_json
        self.mode = "show" if not hide_json else "undecided"
        self.buffer = ""

    def feed(self, token: str) -> None:
        if self.mode == "show":
            self.sink(token)
            return
        if self.mode == "hide":
            return
        self.buffer += token
        if self.mode == "answer":
            self._emit_answer()
            return
        head = self.buffer.lstrip()
        if not head:
            return
        if head[0] not in "{`":
            self.mode = "show"
            self.sink(self.buffer)
            return
        match = self._ANSWER.match(head)
        if match:
            self.mode, self.buffer = "answer", head[match.end() :]
            self._emit_answer()
        elif len(head) > 16 or '"tool"' in head or head[0] == "`":
            self.mode = "hide"

    def _emit_answer(self) -> None:
        """Decode the JSON string in `buffer` up to what is complete; keep a partial escape."""
        out, text, i = [], self.buffer, 0
        while i < len(text):
            char = text[i]
            if char == '"':
                self.mode = "hide"  # the answer ended; the rest is the closing brace
                break
            if char != "\\":
                out.append(char)
                i += 1
                continue
            escape = text[i : i + 6] if text[i + 1 : i + 2] == "u" else text[i : i + 2]
            if len(escape) < 2 or (escape[1] == "u" and len(escape) < 6):
                break  # wait for the rest of the escape
            try:
                out.append(json.loads(f'"{escape}"'))
            except ValueError:
                out.append(escape)
            i += len(escape)
        self.buffer = text[i:]
        if out:
            self.sink("".join(out))
