"""A run as a DBOS workflow: each model call and each tool call is a checkpointed step.

When a worker dies, DBOS runs the workflow again on a live worker (one launched with the same
executor id), and every step that had completed returns its recorded output instead of running
again: a completed tool call is never executed twice (one cut short is run again).

Replaying the loop must not write the session twice, so the loop runs on a private store
seeded from the session's history (itself a recorded step), and what the run did reaches the
session's store in a last step (`commit`): a commit cut short and run again skips what it had
already written.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from dbos import DBOS

from agentframe_core import (
    Capabilities,
    Completion,
    PluginHost,
    Session,
    Stack,
    StoredEntry,
    ToolResult,
    build_stack,
    load_config,
)

from . import tracing
from .commit import Scratch, commit
from .names import WAITING_EVENT, WORKFLOW_NAME, result_topic
from .questions import DurableQuestions, asking_for

__all__ = ["PENDING_WAIT_SECONDS", "DurableAdapter", "DurableDispatcher", "agentframe_run"]


class DurableAdapter:
    """The stack's adapter, each `complete` a step (no streaming: a step returns whole)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    @property
    def capabilities(self) -> Capabilities:
        caps: Capabilities = self.inner.capabilities
        return dataclasses.replace(caps, streaming=False)

    async def complete(self, request: Any) -> Completion:
        done: Completion = await tracing.step("model_call", self.inner.complete, request)
        return done

    async def stream(self, request: Any) -> AsyncIterator[str | Completion]:
        yield await self.complete(request)


#: Seconds a run waits for the result of a parked tool call (`ToolResult(pending=True)`),
#: sent with `agentframe send`; set by `agentframe worker --wait-pending`. 0: park as usual.
PENDING_WAIT_SECONDS = 0.0


class DurableDispatcher:
    """A tool dispatcher whose every call is a step. A parked call (its result comes later)
    waits for that result as a DBOS message, durably: a worker restart keeps waiting. The
    questions a call asks are its own (`questions.py`)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    async def tools(self, ctx: Any) -> Any:
        return await self.inner.tools(ctx)

    async def dispatch(self, call: Any, ctx: Any) -> ToolResult:
        async def run() -> ToolResult:
            result: ToolResult = await self.inner.dispatch(call, ctx)
            return result

        with asking_for(call.id):  # the call's questions are told apart by its id
            done: ToolResult = await tracing.step(f"tool:{call.name}", run)
        if not done.pending or PENDING_WAIT_SECONDS <= 0:
            return done
        await DBOS.set_event_async(WAITING_EVENT, {"call_id": call.id, "tool": call.name})
        arrived = await DBOS.recv_async(result_topic(call.id), PENDING_WAIT_SECONDS)
        await DBOS.set_event_async(WAITING_EVENT, None)
        if arrived is None:  # nothing came in time: parked, as without DBOS
            return done
        return ToolResult(content=str(arrived))


async def _history(store: Any, session_id: str) -> list[StoredEntry]:
    if hasattr(store, "history"):
        records: list[StoredEntry] = await store.history(session_id)
        return records
    return [StoredEntry(entry) for entry in await store.context(session_id)]


@DBOS.workflow(name=WORKFLOW_NAME)
async def agentframe_run(
    config_file: str | None, profile: str | None, session_id: str, prompt: str
) -> dict[str, Any]:
    """One run of `prompt` on `session_id` with the stack `config_file` describes."""
    host = PluginHost()
    config = load_config(host, Path(config_file) if config_file else None, profile)
    stack = build_stack(config, host)  # installs the telemetry providers, if asked for
    try:
        with tracing.workflow(session_id):
            return await _run(stack, session_id, prompt)
    finally:
        await stack.aclose()


async def _run(stack: Stack, session_id: str, prompt: str) -> dict[str, Any]:
    """The run inside its workflow: the history, the loop on a scratch store, the commit."""
    store = stack.store
    history = await tracing.step("load_history", _history, store, session_id)
    scratch = Scratch()
    await scratch.restore(session_id, history)
    durable = dataclasses.replace(
        stack,
        adapter=DurableAdapter(stack.adapter),
        store=scratch,
        tools=[DurableDispatcher(tools) for tools in stack.tools],
    )
    workflow_id = DBOS.workflow_id or "run"
    asking = DurableQuestions(workflow_id, PENDING_WAIT_SECONDS)
    result = await Session(durable, session_id).run(prompt, on_question=asking)
    await tracing.step("commit", commit, store, session_id, history, scratch, workflow_id)
    return {
        "session_id": session_id,
        "reply": result.reply,
        "outcome": str(result.outcome),
        "tool_calls": len(result.tool_calls),
    }
