"""Tools about the run itself, for the `functions` dispatcher:

    tools:
      - use: functions
        import:
          - agentframe_core.metatools:report_inability
          - agentframe_core.metatools:load_tool_result
          - agentframe_core.metatools:search_tool_results

- `report_inability(reason)`: the run ends with `Outcome.UNABLE` and the reason as its reply,
  instead of a small model looping until `max_turns`.
- `load_tool_result(call_id, offset, length)`: a page of a result the model saw cut to head and
  tail (the store keeps every result whole).
- `search_tool_results(query)`: this session's earlier results that mention the query.

They are plain functions (the schema comes from the signatures, `RunContext` reaches the store),
so any stack opts in per tool, and no dispatcher is written twice.
"""

from __future__ import annotations

from .contract.model import Entry, EntryKind
from .contract.protocols import RunContext
from .contract.tools import ToolResult
from .engine.functions import tool

__all__ = ["load_tool_result", "report_inability", "search_tool_results"]

MAX_REASON = 2_000
MAX_PAGE = 16_000
SNIPPET = 240
_SELF = frozenset({"load_tool_result", "search_tool_results"})


@tool(pinned=True)
async def report_inability(reason: str) -> ToolResult:
    """Say that you cannot do the task, and why. This ends your work on it: use it only when no
    tool and no answer can help.

    Args:
        reason: why the task cannot be done, for the user
    """
    text = reason.strip()[:MAX_REASON] or "no reason given"
    return ToolResult(text, outcome="unable")


async def _results(ctx: RunContext) -> list[Entry]:
    """Every tool result of the session, compacted-away ones too where the store keeps them."""
    store = ctx.stack.store
    history = getattr(store, "history", None)  # ExportableStore
    if history is not None:
        entries = [record.entry for record in await history(ctx.session_id)]
    else:
        entries = await store.context(ctx.session_id)
    return [e for e in entries if e.kind is EntryKind.TOOL_RESULT and e.tool_name not in _SELF]


@tool
async def load_tool_result(
    ctx: RunContext, call_id: str, offset: int = 0, length: int = 4_000
) -> ToolResult:
    """Read part of an earlier tool result that was shown cut short.

    Args:
        call_id: the id of the tool call whose result to read
        offset: the first character to read (0 is the start)
        length: how many characters to read (at most 16000)
    """
    results = await _results(ctx)
    found = next((e for e in reversed(results) if e.tool_call_id == call_id), None)
    if found is None:
        known = ", ".join(f"{e.tool_call_id} ({e.tool_name})" for e in results[-10:]) or "none"
        return ToolResult(f"no tool result for call {call_id!r}; recent calls: {known}", True)
    total = len(found.content)
    start = min(max(offset, 0), total)
    end = min(start + min(max(length, 1), MAX_PAGE), total)
    more = f"; {total - end} more from offset {end}" if end < total else "; the end"
    header = f"[{found.tool_name} result {call_id}: characters {start}-{end} of {total}{more}]"
    return ToolResult(f"{header}\n{found.content[start:end]}")


@tool
async def search_tool_results(ctx: RunContext, query: str, limit: int = 5) -> ToolResult:
    """Search the results of this session's earlier tool calls.

    Args:
        query: words to look for
        limit: how many results to show (at most 20)
    """
    limit = min(max(limit, 1), 20)
    hits = await _search(ctx, query, limit)
    if not hits:
        return ToolResult(f"no earlier tool result mentions {query!r}")
    lines = [f"{len(hits)} result(s); load_tool_result(call_id, offset) reads more:"]
    for entry in hits:
        at = _first_match(entry.content, query)
        start = max(at - SNIPPET // 2, 0)
        snippet = entry.content[start : start + SNIPPET].replace("\n", " ")
        lines.append(f"- call {entry.tool_call_id} ({entry.tool_name}), offset {start}: {snippet}")
    return ToolResult("\n".join(lines))


async def _search(ctx: RunContext, query: str, limit: int) -> list[Entry]:
    store = ctx.stack.store
    search = getattr(store, "search", None)  # SearchableStore
    if search is not None:
        found: list[Entry] = await search(ctx.session_id, query, limit * 4)
        hits = [e for e in found if e.kind is EntryKind.TOOL_RESULT and e.tool_name not in _SELF]
        return hits[:limit]
    words = query.lower().split()
    scored = [
        (sum(e.content.lower().count(w) for w in words), e) for e in await _results(ctx) if words
    ]
    return [e for score, e in sorted(scored, key=lambda p: -p[0]) if score][:limit]


def _first_match(text: str, query: str) -> int:
    lowered = text.lower()
    positions = [lowered.find(word) for word in query.lower().split()]
    return min((p for p in positions if p >= 0), default=0)
