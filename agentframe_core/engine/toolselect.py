"""Tool selection: above `limits.visible_tools` tools, the model sees the most relevant ones.

A small model given two dozen tools spends its window on their schemas and calls none of them
right (SmolLM2: 238 s and `parse_errors` with 24 tools). So the run shows the tools pinned
always-visible (`Tool.pinned`, terminal tools, the agent's required tool), the tools this
session already used or asked for, and, up to the limit, the best BM25 matches
(`support/bm25.py`) of each tool's name, description and parameter names against the
session's first user message that matches any tool; plus `search_tools`, whose result names
more tools, which become callable.

The choice is a function of the session's history: the same on every turn and every run of
one session, so the prompt's prefix (system prompt, tools) stays cached by the model server
(a greeting first changes it once, at the first real question). It grows only when the model
asks (`search_tools`, or a call to a tool not shown), and is made afresh when compaction
changes which user messages the session holds.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from typing import Literal

from ..contract.model import Entry, EntryKind, ToolCall
from ..contract.protocols import RunContext
from ..contract.tools import Tool, ToolResult
from ..support.bm25 import bm25_scores

__all__ = ["SEARCH_TOOL", "ToolSearch", "choose", "ranked", "reason", "report", "visible_limit"]

SEARCH_TOOL = "search_tools"
#: `visible_tools: auto` selects for context windows up to this many tokens ...
AUTO_MAX_WINDOW = 32_768
#: ... showing one tool per this many tokens of the window, and never fewer than `AUTO_MIN`.
TOKENS_PER_TOOL = 1_024
AUTO_MIN = 4
#: Tools one `search_tools` call reveals at most, and hidden names listed when none match.
SEARCH_LIMIT = 5
LIST_LIMIT = 50
#: User messages looked at for the first one that matches a tool.
MAX_QUERIES = 20
_DESCRIPTION_CHARS = 2_000


def visible_limit(setting: int | Literal["auto"], window: int | None) -> int | None:
    """How many tools a run shows at most (None: all). `auto`: one per 1024 tokens of the
    adapter's context window (at least 4) for windows up to 32k tokens, else all."""
    if setting == "auto":
        if window is None or window > AUTO_MAX_WINDOW:
            return None
        return max(AUTO_MIN, window // TOKENS_PER_TOOL)
    return setting or None


def _text(tool: Tool) -> str:
    """What a tool is matched on: its name (words split), description and parameter names."""
    properties = tool.parameters.get("properties")
    params = " ".join(properties) if isinstance(properties, dict) else ""
    name = tool.name.replace("_", " ").replace("-", " ")
    return f"{name} {name} {tool.description[:_DESCRIPTION_CHARS]} {params}"


def ranked(tools: Sequence[Tool], query: str) -> list[Tool]:
    """The tools matching `query`, best first (ties in their order); no match, no tool."""
    scores = bm25_scores([_text(t) for t in tools], query)
    order = sorted(range(len(tools)), key=lambda i: -scores[i])
    return [tools[i] for i in order if scores[i] > 0]


def _asked_for(entries: Iterable[Entry]) -> list[str]:
    """Tools the session already called, or that `search_tools` revealed to it, in order."""
    names: dict[str, None] = {}
    for entry in entries:
        if entry.kind is EntryKind.TOOL_CALL and entry.tool_name:
            names[entry.tool_name] = None
        elif entry.kind is EntryKind.TOOL_RESULT and entry.tool_name == SEARCH_TOOL:
            found = entry.meta.get("tools")
            if isinstance(found, list):
                names.update((n, None) for n in found if isinstance(n, str))
    return list(names)


def choose(
    tools: Sequence[Tool], pinned: set[str], entries: list[Entry], limit: int
) -> tuple[list[str], list[str]]:
    """What a run shows: first the pinned tools and the best matches of the session's first
    user message that matches any tool, up to `limit` in all, in the tools' order; then the
    tools asked for since (called, or found by `search_tools`), in the order they were. The
    same history gives the same list, so a later run's prompt starts as the earlier one's."""
    known = [t.name for t in tools]
    base = pinned & set(known)
    room = limit - len(base)
    others = [t for t in tools if t.name not in base]
    asked = (e.content for e in entries if e.kind is EntryKind.USER)
    for query in itertools.islice(asked, MAX_QUERIES):  # a "hi" first matches nothing
        found = ranked(others, query)[:room] if room > 0 else []
        if found:
            base.update(t.name for t in found)
            break
    later = [n for n in _asked_for(entries) if n in known and n not in base]
    return [n for n in known if n in base], later


class ToolSearch:
    """The `search_tools` tool: finds tools not shown and makes them callable.

    Held by the run's toolbox, which it asks for the hidden tools and tells what to reveal
    (callbacks, so that this module does not depend on the toolbox)."""

    tool = Tool(
        name=SEARCH_TOOL,
        description="Find more tools: only some of the tools are listed. Give words for what "
        "you need to do; the tools found can be called right after.",
        parameters={
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 500,
                    "description": "what the tool should do",
                }
            },
            "required": ["query"],
            "additionalProperties": False,
        },
        writes=False,
        pinned=True,
    )

    def __init__(
        self, hidden: Callable[[], list[Tool]], reveal: Callable[[list[str]], None]
    ) -> None:
        self._hidden, self._reveal = hidden, reveal

    async def tools(self, ctx: RunContext) -> list[Tool]:
        return [self.tool]

    async def dispatch(self, call: ToolCall, ctx: RunContext) -> ToolResult:
        query = str(call.arguments.get("query", ""))
        hidden = self._hidden()
        found = ranked(hidden, query)[:SEARCH_LIMIT]
        if not found:
            names = ", ".join(t.name for t in hidden[:LIST_LIMIT]) or "none"
            more = f" and {len(hidden) - LIST_LIMIT} more" if len(hidden) > LIST_LIMIT else ""
            return ToolResult(
                f"no tool matches {query[:100]!r}; the tools not listed yet: {names}{more}",
                meta={"tools": []},
            )
        self._reveal([t.name for t in found])
        lines = [f"{len(found)} tool(s) found; call them like the others:"]
        lines += [f"- {t.name}: {_first_line(t.description)}" for t in found]
        return ToolResult("\n".join(lines), meta={"tools": [t.name for t in found]})


def _first_line(text: str) -> str:
    line = text.strip().split("\n", 1)[0]
    return line if len(line) <= 200 else line[:199] + "…"


def reason(setting: int | Literal["auto"], window: int | None) -> str:
    """Why a run shows the number of tools it shows, for -v and `doctor`."""
    why = f"limits.visible_tools: {setting}"
    return f"{why}, a {window}-token window" if setting == "auto" and window else why


def report(shown: int, total: int, setting: int | Literal["auto"], window: int | None) -> str:
    """The -v line of how many tools a run shows."""
    why = reason(setting, window)
    return f"showing {shown} of {total} tools ({why}); {SEARCH_TOOL} finds the rest"
