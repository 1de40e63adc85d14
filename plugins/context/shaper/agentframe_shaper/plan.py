"""Where a session may be cut: never between a tool call and its result.

The pristine tail starts at such a cut, on a message that cannot merge with the one before
it, so that it renders exactly as it would on its own; a compaction ends at such a cut.
"""

from __future__ import annotations

from agentframe_core import Entry, EntryKind

__all__ = ["safe_cuts", "tail_start", "waiting_calls"]

_MESSAGES = frozenset(
    {EntryKind.USER, EntryKind.ASSISTANT, EntryKind.TOOL_RESULT, EntryKind.NOTIFICATION}
)
_OPENERS = frozenset({EntryKind.USER, EntryKind.NOTIFICATION})


def safe_cuts(entries: list[Entry]) -> list[bool]:
    """`cuts[i]` (0 <= i <= len): does cutting before entry i keep every call with its result?"""
    return [waiting == 0 for waiting in waiting_calls(entries)]


def waiting_calls(entries: list[Entry]) -> list[int]:
    """At each cut, how many calls before it have their result after it."""
    n = len(entries)
    last_result: dict[str, int] = {}
    for index, entry in enumerate(entries):
        if entry.kind is EntryKind.TOOL_RESULT and entry.tool_call_id:
            last_result[entry.tool_call_id] = index
    opened = [0] * (n + 2)  # a difference array
    for index, entry in enumerate(entries):
        if entry.kind is EntryKind.TOOL_CALL:
            answer = last_result.get(entry.tool_call_id or entry.id, -1)
            if answer > index:
                opened[index + 1] += 1
                opened[answer + 1] -= 1
    counts, waiting = [], 0
    for index in range(n + 1):
        waiting += opened[index]
        counts.append(waiting)
    return counts


def tail_start(
    entries: list[Entry],
    cuts: list[bool],
    messages: int,
    exchanges: int,
    waiting: list[int] | None = None,
) -> int:
    """Index of the first entry of the pristine tail: the last `messages` messages and the last
    `exchanges` tool calls, widened back to a safe cut where a new message begins."""
    start = len(entries)
    seen_messages = seen_calls = 0
    for index in range(len(entries) - 1, -1, -1):
        kind = entries[index].kind
        if kind in _MESSAGES and seen_messages < messages:
            seen_messages += 1
            start = index
        elif kind is EntryKind.TOOL_CALL and seen_calls < exchanges:
            seen_calls += 1
            start = index
        if seen_messages >= messages and seen_calls >= exchanges:
            break
    replies = _clean_replies(entries, waiting or waiting_calls(entries))
    while start > 0 and not (
        cuts[start]
        and (start == len(entries) or entries[start].kind in _OPENERS or start in replies)
    ):
        start -= 1
    return start


def _clean_replies(entries: list[Entry], waiting: list[int]) -> set[int]:
    """Assistant entries that begin a message of their own whatever came before: right after
    an entry shown as a tool or user message, with no call before them left unanswered and
    nothing the renderer would hold back to show after them (an assistant entry written
    while calls were open)."""
    answered = {e.tool_call_id for e in entries if e.kind is EntryKind.TOOL_RESULT}
    found: set[int] = set()
    troubled = False
    for index, entry in enumerate(entries):
        kind = entry.kind
        if kind is EntryKind.ASSISTANT:
            if waiting[index] or (index and entries[index - 1].kind is EntryKind.TOOL_CALL):
                troubled = True
            elif not troubled and index and _not_assistant(entries[index - 1]):
                found.add(index)
        elif kind is EntryKind.TOOL_CALL and (entry.tool_call_id or entry.id) not in answered:
            troubled = True
    return found


#: The kernel's marker for dropped notifications renders as nothing at all.
_INVISIBLE_TAG = "dropped-notifications"


def _not_assistant(entry: Entry) -> bool:
    """Is `entry` rendered as a message of its own that is not the assistant's?"""
    if entry.kind is EntryKind.COMPACTION:
        return entry.tag != _INVISIBLE_TAG
    return entry.kind in _MESSAGES and entry.kind is not EntryKind.ASSISTANT
