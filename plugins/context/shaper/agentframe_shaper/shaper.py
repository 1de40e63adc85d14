"""`Shaper` (`context: {use: shaper}`): a session fitted into a token budget, KV cache kept.

Each build renders the session as it stood, with the stubs chosen so far, and only appends
to the tail: the prompt prefix, and so the server's KV cache, stays valid. When the prompt
would cross `budget - headroom`, one reshape brings it down to `budget - 2 * headroom`:
older long entries become stubs (newest first: the nearer the change, the more of the
cached prefix survives), and if that is not enough everything before the pristine tail is
compacted into one summary written by the model. The pristine tail is never touched; if
even the summary does not fit beside it, the summary is shortened for the render.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from dataclasses import dataclass, field

from agentframe_core import (
    CompactionReport,
    Entry,
    EntryKind,
    Message,
    Renderer,
    RunContext,
    head_tail,
)

from .compact import FOLLOW_UP_TOKENS, Seen, Summariser
from .lod import can_stub, shown_text, stub
from .options import ShaperOptions
from .plan import tail_start, waiting_calls
from .tokens import (
    MESSAGE_OVERHEAD,
    AdapterEstimator,
    CharsEstimator,
    TiktokenEstimator,
    TokenEstimator,
    budget,
)

__all__ = ["Shaper"]

log = logging.getLogger("agentframe.shaper")

#: The window assumed when neither the options nor the adapter name one.
FALLBACK_WINDOW = 8192
#: No budget is larger, whatever a server claims.
MAX_WINDOW = 10_000_000
_MAX_COSTS = 200_000


@dataclass(slots=True)
class _State:
    """What a session's builds keep between calls: the stubs chosen, and the head and tail
    as rendered, so that a build which only appends renders just the new entries."""

    stubs: dict[str, Entry] = field(default_factory=dict)
    head: Renderer | None = None
    tail: Renderer | None = None


@dataclass(slots=True)
class _Layout:
    entries: list[Entry]
    start: int  # first entry of the pristine tail
    cuts: list[bool]
    shown: list[Entry]  # entries as sent: stubs in the head
    costs: list[int]
    fixed: int  # the system prompt's tokens

    @property
    def total(self) -> int:
        return self.fixed + sum(self.costs)


class Shaper:
    def __init__(self, options: ShaperOptions, estimator: TokenEstimator | None = None) -> None:
        self.options = options
        self._estimator = estimator
        self._states: OrderedDict[str, _State] = OrderedDict()
        self._costs: dict[str, int] = {}  # entry id -> tokens, as stored
        self._stub_costs: dict[str, int] = {}  # entry id -> tokens, as a stub
        self._warned_window = False
        self._system: tuple[str, int] = ("", 0)
        #: The entries the last build rendered, stubs in place (for benchmarks and tests).
        self.last_sent: list[Entry] = []

    async def build(self, ctx: RunContext, system: str) -> list[Message]:
        state = self._state(ctx.session_id)
        limit = await self.budget(ctx)
        headroom = self.options.headroom_tokens or max(limit // 4, 1)
        entries = await ctx.stack.store.context(ctx.session_id)
        layout = await self._layout(ctx, entries, state, system)
        if layout.total > limit - headroom:
            layout = await self._reshape(ctx, layout, state, system, limit, headroom)
        return self._render(ctx, layout, state, system, limit)

    async def budget(self, ctx: RunContext) -> int:
        """The tokens a prompt may use: `budget_tokens`, else the window minus `reserve`; the
        window is `context_window`, else the adapter's `fetch_context_window()` (optional: a
        server that reports its own), else its `capabilities.context_window`."""
        options = self.options
        if options.budget_tokens is not None:
            return min(options.budget_tokens, MAX_WINDOW)
        adapter = ctx.stack.adapter
        window = options.context_window
        probe = getattr(adapter, "fetch_context_window", None)  # what the server itself says
        if window is None and probe is not None:
            window = await probe()
        window = window or adapter.capabilities.context_window
        if window is None:
            if not self._warned_window:
                log.warning(
                    "no context window is known (set the shaper's budget_tokens or "
                    "context_window, or the adapter's); assuming %d",
                    FALLBACK_WINDOW,
                )
                self._warned_window = True
            window = FALLBACK_WINDOW
        return budget(min(int(window), MAX_WINDOW), options.reserve)

    def fixed_budget(self) -> int | None:
        """The budget the options alone set (`budget_tokens`, or `context_window` minus
        `reserve`), for `config check`; None when the adapter's window decides it."""
        options = self.options
        if options.budget_tokens is not None:
            return min(options.budget_tokens, MAX_WINDOW)
        if options.context_window is not None:
            return budget(min(options.context_window, MAX_WINDOW), options.reserve)
        return None

    # -- measuring ---------------------------------------------------------------------------

    def estimator(self, ctx: RunContext) -> TokenEstimator:
        if self._estimator is None:
            kind = self.options.estimator
            if kind == "adapter":
                self._estimator = AdapterEstimator(ctx.stack.adapter)
            elif kind == "tiktoken":
                self._estimator = TiktokenEstimator(self.options.tokenizer_model)
            else:
                self._estimator = CharsEstimator()
        return self._estimator

    async def _layout(
        self, ctx: RunContext, entries: list[Entry], state: _State, system: str
    ) -> _Layout:
        options = self.options
        waiting = waiting_calls(entries)
        cuts = [count == 0 for count in waiting]
        start = tail_start(
            entries, cuts, options.pristine_messages, options.pristine_tool_exchanges, waiting
        )
        stubs = state.stubs
        shown = [stubs.get(e.id, e) for e in entries[:start]] + entries[start:]
        costs = await self._cost(ctx, shown, stubs)
        return _Layout(entries, start, cuts, shown, costs, await self._system_cost(ctx, system))

    async def _system_cost(self, ctx: RunContext, system: str) -> int:
        if not system:
            return 0
        if self._system[0] != system:
            (tokens,) = await self.estimator(ctx).count([system])
            self._system = (system, tokens + MESSAGE_OVERHEAD)
        return self._system[1]

    async def _cost(
        self, ctx: RunContext, shown: list[Entry], stubs: dict[str, Entry]
    ) -> list[int]:
        """Tokens of each entry as shown (its message overhead included), counted once."""
        plain, stubbed = self._costs, self._stub_costs
        tables = [stubbed if stubs.get(e.id) is e else plain for e in shown]
        costs = [table.get(e.id, -1) for table, e in zip(tables, shown, strict=True)]
        missing = [i for i, cost in enumerate(costs) if cost < 0]
        if missing:
            inline = ctx.stack.limits.inline_result_chars
            counted = await self.estimator(ctx).count(
                [shown_text(shown[i], inline) for i in missing]
            )
            if len(plain) + len(stubbed) > _MAX_COSTS:
                plain.clear()
                stubbed.clear()
            for i, tokens in zip(missing, counted, strict=True):
                costs[i] = tables[i][shown[i].id] = tokens + MESSAGE_OVERHEAD
        return costs

    # -- reshaping ---------------------------------------------------------------------------

    async def _reshape(
        self,
        ctx: RunContext,
        layout: _Layout,
        state: _State,
        system: str,
        limit: int,
        headroom: int,
    ) -> _Layout:
        """One decisive pass down to `budget - 2 * headroom`: stubs first, and if they are not
        enough, compaction of everything before the pristine tail."""
        target = limit - 2 * headroom
        before = layout  # as the model last saw it, stubs not yet changed
        await self._stub(ctx, layout, state, target)
        layout = await self._layout(ctx, layout.entries, state, system)
        if layout.total <= target or not self._worth_compacting(layout, limit, headroom):
            return layout
        seen = self._seen(ctx, before, system, limit)
        compacted = await self._compact(ctx, layout, limit, seen)
        if compacted is None:
            return layout
        summary, subsumed = compacted
        entries = await ctx.stack.store.context(ctx.session_id)
        layout = await self._layout(ctx, entries, state, system)
        ctx.report_compaction(CompactionReport(summary, subsumed, before.total, layout.total))
        return layout

    async def _stub(self, ctx: RunContext, layout: _Layout, state: _State, target: int) -> None:
        options = self.options
        candidates = [
            i
            for i in range(layout.start - 1, -1, -1)
            if layout.entries[i].id not in state.stubs
            and can_stub(layout.entries[i], options.lod_above_chars)
        ]
        if not candidates:
            return
        loadable = any(getattr(t, "loads_messages", False) for t in ctx.stack.tools)
        made = {i: stub(layout.entries[i], options.stub_head_chars, loadable) for i in candidates}
        for made_stub in made.values():
            state.stubs[made_stub.id] = made_stub
        shown = [made[i] for i in candidates]
        stub_costs = await self._cost(ctx, shown, state.stubs)
        total = layout.total
        for i, cost in zip(candidates, stub_costs, strict=True):
            if total <= target:
                del state.stubs[layout.entries[i].id]  # not needed: keep it verbatim
            else:
                total -= layout.costs[i] - cost

    def _worth_compacting(self, layout: _Layout, limit: int, headroom: int) -> bool:
        """A compaction costs a model call and a recompute of the whole prompt: worth it when
        the prompt is over the budget, or when it buys at least half the headroom (a small
        head beside a large pristine tail buys little, and would be compacted turn after
        turn)."""
        head = sum(layout.costs[: layout.start])
        gain = head - self.options.summary_max_tokens - MESSAGE_OVERHEAD
        return layout.total > limit or gain >= headroom // 2

    def _seen(self, ctx: RunContext, layout: _Layout, system: str, limit: int) -> Seen | None:
        """The prompt the model last saw, plus what is new, for a summary request that the
        server's cache serves; None where another model summarises or it would not fit
        the window with the instruction and the summary."""
        options = self.options
        if options.summary_model is not None:
            return None
        spare = options.reserve if options.budget_tokens is None else 0
        if layout.total + FOLLOW_UP_TOKENS + options.summary_max_tokens > limit + spare:
            return None
        inline = ctx.stack.limits.inline_result_chars
        head, tail = Renderer(inline), Renderer(inline)
        head.feed(layout.shown[: layout.start])
        tail.feed(layout.entries[layout.start :])
        first = [Message("system", system)] if system else []
        return Seen(first + head.view() + tail.view(), len(tail.view()))

    async def _compact(
        self, ctx: RunContext, layout: _Layout, limit: int, seen: Seen | None
    ) -> tuple[str, int] | None:
        """Summarise everything before the pristine tail; return the summary and how many
        entries it replaced (None when there is nothing left to compact). A compaction
        rewrites the prompt from its start, so the server recomputes all of it whatever the
        cut: taking the whole head buys the most runway for that one recompute."""
        options = self.options
        start, entries = layout.start, layout.entries
        prefix = entries[:start]
        if not prefix or (len(prefix) == 1 and prefix[0].kind is EntryKind.COMPACTION):
            return None
        await ctx.compacting("auto")
        summariser = Summariser(
            self.estimator(ctx),
            options.summary_max_tokens,
            options.summary_model,
            ctx.stack.limits.inline_result_chars,
        )
        follower = entries[start] if start < len(entries) else None
        inputs = max(limit - options.summary_max_tokens, 256)
        summary = await summariser.compact(ctx, prefix, follower, inputs, seen)
        return summary, len(prefix)

    # -- rendering ---------------------------------------------------------------------------

    def _render(
        self, ctx: RunContext, layout: _Layout, state: _State, system: str, limit: int
    ) -> list[Message]:
        inline = ctx.stack.limits.inline_result_chars
        head = layout.shown[: layout.start]
        if layout.total > limit:
            head = _squeeze(head, layout, layout.total - limit)
        tail = layout.entries[layout.start :]
        state.head = _resumed(state.head, head, inline)
        state.tail = _resumed(state.tail, tail, inline)
        self.last_sent = head + tail
        first = [Message("system", system)] if system else []
        return first + state.head.view() + state.tail.view()

    def _state(self, session_id: str) -> _State:
        state = self._states.pop(session_id, None) or _State()
        self._states[session_id] = state
        if len(self._states) > 64:
            self._states.popitem(last=False)
        return state


def _resumed(renderer: Renderer | None, entries: list[Entry], inline: int) -> Renderer:
    """`renderer` fed what it lacks of `entries`, or a new one if `entries` does not extend
    what it rendered (the tail's start moved, a stub was chosen, a compaction happened)."""
    if renderer is None or renderer.inline_chars != inline or not renderer.extends(entries):
        renderer = Renderer(inline)
    renderer.feed(entries[len(renderer.entries) :])
    return renderer


def _squeeze(head: list[Entry], layout: _Layout, excess: int) -> list[Entry]:
    """The last resort when even a summary does not fit beside the tail: shorten the
    summaries in the head for this render (the store keeps them whole), or leave them out."""
    squeezed = list(head)
    for index, entry in enumerate(head):
        if excess <= 0:
            break
        if entry.kind is not EntryKind.COMPACTION:
            continue
        cost = layout.costs[index]
        keep_chars = (cost - excess - MESSAGE_OVERHEAD - 12) * 4 - 40
        if keep_chars >= 80:
            squeezed[index] = _shortened(entry, keep_chars)
            excess -= cost - ((keep_chars + 40 + 3) // 4 + MESSAGE_OVERHEAD + 12)
        else:
            squeezed[index] = _EMPTY
            excess -= cost
    return [e for e in squeezed if e is not _EMPTY]


def _shortened(entry: Entry, chars: int) -> Entry:
    from dataclasses import replace

    return replace(entry, content=head_tail(entry.content, chars))


_EMPTY = Entry(kind=EntryKind.COMPACTION)
