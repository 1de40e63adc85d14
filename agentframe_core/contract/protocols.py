"""The six extension points, as typed Protocols, and how parts reach each other.

A part satisfies a protocol structurally: no base class to inherit. Each protocol has a
conformance kit in `agentframe_core.testing` that checks behaviour, not shape. A part that
holds resources is `Closeable`: the stack closes it. Optional capabilities are protocols too,
checked with `isinstance`.

A `Stack` holds one part per extension point; a `RunContext` is what a part sees of the
session it works for, `ctx.stack` included. They live here, beside the protocols they are
made of, because each refers to the other: one module keeps the contract free of cycles.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from .configtypes import Config, Limits
from .definition import AgentDefinition
from .errors import AgentDefinitionError
from .llm import Capabilities, Completion, CompletionRequest
from .model import Compaction, Entry, Message, SessionInfo, ToolCall
from .questions import NOBODY_TO_ASK, Answer, Question, QuestionCallback
from .reports import CompactionReport, RetrievalReport
from .runtimehooks import runtime_verdicts
from .tools import Tool, ToolResult

if TYPE_CHECKING:
    import pluggy

__all__ = [
    "AgentLoader",
    "AgentScan",
    "Closeable",
    "ContextBuilder",
    "ExportableStore",
    "LLMAdapter",
    "LeasingStore",
    "LocalLeasingStore",
    "PrioritizedLoader",
    "PrunableStore",
    "Retriever",
    "RunContext",
    "ScanningLoader",
    "SearchableStore",
    "Snippet",
    "Stack",
    "Store",
    "StoredEntry",
    "ToolDispatcher",
]


@runtime_checkable
class LLMAdapter(Protocol):
    """Talks to one model backend."""

    @property
    def capabilities(self) -> Capabilities: ...

    async def complete(self, request: CompletionRequest) -> Completion:
        """The whole reply at once."""
        ...

    def stream(self, request: CompletionRequest) -> AsyncIterator[str | Completion]:
        """Text deltas as `str` while they arrive, then exactly one `Completion` (the whole
        reply, tool calls assembled), last."""
        ...


@runtime_checkable
class Store(Protocol):
    """Durable session logs. All methods are safe to call concurrently on one event loop."""

    async def append(self, session_id: str, entry: Entry) -> None:
        """Persist a visible entry (creating the session on first use)."""
        ...

    async def enqueue(self, session_id: str, entry: Entry) -> None:
        """Persist a pending arrival, invisible to `context` until claimed."""
        ...

    async def claim_pending(self, session_id: str, at: int) -> int:
        """Make pending entries with `created_at <= at` visible; return how many."""
        ...

    async def context(self, session_id: str) -> list[Entry]:
        """Every claimed, non-subsumed entry, ordered by `created_at` (ties: insertion order)."""
        ...

    async def compact(self, session_id: str, compaction: Compaction) -> None:
        """Write `compaction.marker` and flag the entries in `compaction.subsumes`, atomically.
        Subsumed entries are hidden from `context`, not necessarily deleted."""
        ...

    async def sessions(self) -> list[SessionInfo]:
        """Every session, most recently updated first."""
        ...

    async def delete(self, session_id: str) -> None:
        """Remove a session and all its entries; deleting an unknown id is not an error."""
        ...


@dataclass(frozen=True, slots=True)
class StoredEntry:
    """An entry with its state in the store, for export and import."""

    entry: Entry
    pending: bool = False
    subsumed: bool = False


@runtime_checkable
class ExportableStore(Store, Protocol):
    async def history(self, session_id: str) -> list[StoredEntry]:
        """Every entry of the session, subsumed and pending ones too, in order."""
        ...

    async def restore(self, session_id: str, records: Sequence[StoredEntry]) -> None:
        """Recreate a session from `history()` output, exactly. Its `SessionInfo` times are
        its own: `created_at` of its first entry and `updated_at` of its last (by
        `created_at`), so that an imported old session is old for `prune`."""
        ...


@runtime_checkable
class LeasingStore(Store, Protocol):
    """The per-session turn lease (`agentframe_core.support.turnlease`): one turn at a time per
    session, across processes. Every store must offer it (`StoreConformance` checks it); a
    store without it runs turns unserialised.

    A lease is (holder, expiry). A PostgreSQL store can keep a lease row (holder, expires_at,
    revoked) updated in one statement, or hold a session-level advisory lock per session key
    (then the expiry is the connection's life, and `delete` sets a revoked row)."""

    async def acquire_lease(self, session_id: str, holder: str, ttl: float) -> bool:
        """Take the session's lease for `ttl` seconds if it is free, expired, or already
        `holder`'s (renewing it); True when `holder` holds it now. False while another
        holder's lease is live, and while a revoked lease (a deletion) is live, even for
        its own holder."""
        ...

    async def release_lease(self, session_id: str, holder: str) -> None:
        """Give the lease up if `holder` holds it (revoked or not); otherwise do nothing."""
        ...

    async def lease_revoked(self, session_id: str) -> bool:
        """Whether the session was deleted while its lease was live. Until that lease is
        released or expires, `append`, `enqueue`, `compact` and `restore` on the session
        raise `SessionDeletedError` and write nothing: a deleted session gets no entry from
        the turn that was running on it."""
        ...


@runtime_checkable
class LocalLeasingStore(LeasingStore, Protocol):
    """A `LeasingStore` whose leases live in this process, used from one event loop
    (`MemoryStore`). Its holder cannot stall without the store stalling with it, so the loop
    takes such a lease with no expiry and never renews it; instead of polling
    `lease_revoked`, it asks to be told of a deletion at once."""

    def watch_lease(
        self, session_id: str, holder: str, on_revoked: Callable[[], None]
    ) -> Callable[[], None]:
        """Call `on_revoked()` (synchronously, from the deleting call) when the session is
        deleted while `holder` holds its lease; return a function that stops the watch."""
        ...


@runtime_checkable
class PrunableStore(Store, Protocol):
    async def prune(
        self, *, older_than: timedelta | None = None, keep_last: int | None = None
    ) -> list[str]:
        """Delete sessions not updated within `older_than`, and/or all but the `keep_last`
        most recently updated; return the deleted ids."""
        ...


@runtime_checkable
class SearchableStore(Store, Protocol):
    async def search(self, session_id: str, query: str, limit: int = 10) -> list[Entry]:
        """Full-text search over a session's entries, best match first."""
        ...


@runtime_checkable
class ContextBuilder(Protocol):
    """Renders a session's entries into the messages sent to the model."""

    async def build(self, ctx: RunContext, system: str) -> list[Message]:
        """The system message, then the session's context. A tool call and its result are
        never separated, and two assistant messages never follow each other."""
        ...


@runtime_checkable
class BudgetedBuilder(ContextBuilder, Protocol):
    """A context builder that fits the prompt into a token budget. What it cannot shrink (the
    system prompt, the tools, the tail it always keeps) may be over that budget anyway: the
    loop warns when a prompt it sent was (`RunResult.over_budget`), and `config check` when
    the system prompt and the tools alone are over `fixed_budget()`."""

    async def budget(self, ctx: RunContext) -> int:
        """The tokens a prompt may use in this run."""
        ...

    def fixed_budget(self) -> int | None:
        """The budget the options alone set, without asking the model (None: the model's
        window decides it)."""
        ...


@dataclass(frozen=True, slots=True)
class Snippet:
    """A piece of retrieved text, placed beside the latest user message (`retrieval`)."""

    text: str
    source: str = ""
    score: float = 0.0


@runtime_checkable
class Retriever(Protocol):
    async def retrieve(self, query: str, *, ctx: RunContext, budget_tokens: int) -> list[Snippet]:
        """The snippets most relevant to `query`, together within `budget_tokens`."""
        ...


@runtime_checkable
class ToolDispatcher(Protocol):
    async def tools(self, ctx: RunContext) -> list[Tool]:
        """The tools offered to this session."""
        ...

    async def dispatch(self, call: ToolCall, ctx: RunContext) -> ToolResult:
        """Run one call whose arguments already passed the tool's schema. Raising is allowed:
        the loop turns an exception into an error result for the model."""
        ...


@runtime_checkable
class AgentLoader(Protocol):
    """Finds agent definitions (`agentframe_core.find_agents` asks every registered loader). A
    loader whose options model has a `folders` field receives the config's `agents:` folders.
    Optional: `PrioritizedLoader`, `ScanningLoader`."""

    def discover(self, cwd: Path) -> list[AgentDefinition]:
        """Agent definitions visible from `cwd`, highest priority first. Definitions of one
        name from several loaders are deduplicated by loader priority."""
        ...


@dataclass(frozen=True, slots=True)
class AgentScan:
    """What a loader found: definitions, highest priority first, and the files it skipped."""

    definitions: list[AgentDefinition]
    errors: list[AgentDefinitionError]


# -- optional capabilities: checked with isinstance, never with getattr ------------------------


@runtime_checkable
class PrioritizedLoader(Protocol):
    """A loader that ranks itself: higher wins between loaders at the same level and
    nearness (agentframe's own loader is 100; a loader without `priority` ranks 0)."""

    priority: int


@runtime_checkable
class ScanningLoader(Protocol):
    """A loader that also reports the files it skipped (one without `scan` is trusted to log
    them)."""

    def scan(self, cwd: Path) -> AgentScan: ...


@runtime_checkable
class Closeable(Protocol):
    """A part that holds resources (a server, a connection): the stack closes it."""

    async def aclose(self) -> None: ...


@dataclass(slots=True)
class Stack:
    """One part per extension point (agent loaders excepted: they are consulted once, when a
    session picks its agent), the limits, and the runtime hooks of the loaded plugins."""

    adapter: LLMAdapter
    store: Store
    context: ContextBuilder
    retrievers: list[Retriever] = field(default_factory=list)
    tools: list[ToolDispatcher] = field(default_factory=list)
    limits: Limits = field(default_factory=Limits)
    #: The runtime hooks (`agentframe_gate_tool_call`, ...) of the plugins that are loaded.
    hooks: pluggy.HookRelay | None = None
    config: Config | None = None
    #: The agent definitions seen from a folder, through the agent loaders of the plugins
    #: that built this stack (`build_stack` sets it, so a part that needs the catalog, the
    #: sub-agent tool, does not start a plugin host of its own); None for a stack built by
    #: hand.
    agents: Callable[[Path], list[AgentDefinition]] | None = None

    def parts(self) -> list[Any]:
        return [self.adapter, self.store, self.context, *self.retrievers, *self.tools]

    async def aclose(self) -> None:
        """Close every part that holds resources (the `Closeable` ones), last built first."""
        for part in reversed(self.parts()):
            if isinstance(part, Closeable):
                with contextlib.suppress(Exception):
                    await part.aclose()

    async def __aenter__(self) -> Stack:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


@dataclass(slots=True)
class RunContext:
    """Passed to every part method that runs inside a session.

    This is the one way parts reach each other: `ctx.stack.store`, `ctx.stack.adapter`, ...
    A context builder that compacts reports it through `report_compaction`, which also tells
    the run's `on_compaction` callback at once; the run reports compactions in its `RunResult`,
    with what each retriever returned (`retrievals`). A part that needs the person's decision
    awaits `ask` (the run's `on_question`).
    """

    session_id: str
    stack: Stack
    agent: AgentDefinition | None = None
    compactions: list[CompactionReport] = field(default_factory=list)
    retrievals: list[RetrievalReport] = field(default_factory=list)
    on_compaction: Callable[[CompactionReport], Any] | None = None
    #: Progress of work a part runs on the session's behalf (e.g. a sub-agent started, called
    #: a tool, finished): `on_event(kind, data)`, through `emit`.
    on_event: Callable[[str, dict[str, Any]], Any] | None = None
    #: How the run puts built messages on the wire (tool names, tools as text, retrieved
    #: context). A part that sends the conversation to the model itself (a summary, say)
    #: applies it, so that its request begins as the run's own prompts do and the server's
    #: prompt cache serves that prefix.
    wire: Callable[[list[Message]], list[Message]] = field(default=list)
    #: The session that started this one as a sub-agent (its tool's run), else None.
    parent: str | None = None
    #: The run's id (`RunResult.run_id`, `agentframe.run.id` on its trace spans).
    run_id: str = ""
    #: Who answers the run's questions (`ask`): the CLI at a terminal, a server's client;
    #: None when nobody can.
    on_question: QuestionCallback | None = None

    def emit(self, kind: str, data: dict[str, Any]) -> None:
        """Tell the run's `on_event` callback (whose failure never stops the run)."""
        if self.on_event is None:
            return
        try:
            self.on_event(kind, data)
        except Exception:
            logging.getLogger("agentframe.session").exception(
                "the on_event callback raised; the run goes on"
            )

    async def compacting(self, trigger: str = "auto") -> None:
        """Tell the `agentframe_compacting` hooks that a context builder is about to compact
        this session (a builder calls it before it summarizes); a hook's failure is logged."""
        try:
            await runtime_verdicts(
                self.stack.hooks, "agentframe_compacting", ctx=self, trigger=trigger
            )
        except Exception:
            logging.getLogger("agentframe.session").exception(
                "an agentframe_compacting hook failed; the compaction goes on"
            )

    async def ask(self, question: Question) -> Answer:
        """The person's answer to `question`; declined at once, with the reason, when nobody
        can be asked, and cancelled when asking fails (the run goes on either way)."""
        if self.on_question is None:
            return Answer("decline", reason=NOBODY_TO_ASK)
        try:
            return await self.on_question(question)
        except Exception as err:
            logging.getLogger("agentframe.session").warning("asking failed: %s", err)
            return Answer("cancel", reason=f"asking failed: {type(err).__name__}: {err}")

    def report_compaction(self, report: CompactionReport) -> None:
        """Record a compaction for the run's result and tell the callback (whose failure
        never stops the run)."""
        self.compactions.append(report)
        if self.on_compaction is not None:
            try:
                self.on_compaction(report)
            except Exception:
                logging.getLogger("agentframe.session").exception(
                    "the on_compaction callback raised; the run goes on"
                )
