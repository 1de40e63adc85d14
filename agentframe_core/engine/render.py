"""Entries -> Messages: the one rendering every context builder can reuse.

Rules, so that any backend accepts the result:
- an assistant entry and the tool calls that follow it form ONE assistant message, and two
  assistant entries in a row are merged: two assistant messages never follow each other;
- the results of an assistant message's calls follow it directly, as `tool` messages. Anything
  else that lands between a call and its result (a message queued while the tool ran) is shown
  right after the last result; a call with no recorded result (a crash) gets a placeholder
  result, so no call is ever left unanswered;
- a result whose call is not in the rendered context (compacted away, or the late result of a
  parked call) is shown as a user message naming the tool, so it is never orphaned;
- tool results longer than `inline_chars` are shown as a head+tail view; the store keeps them
  whole.

`Renderer` is incremental: rendering a context that extends the previous one costs only the
new entries.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace

from ..contract.model import Entry, EntryKind, Message, ToolCall

__all__ = ["DROPPED_NOTIFICATIONS", "Renderer", "head_tail"]

#: Tag of the compaction marker the loop writes when plugins drop stale notifications.
DROPPED_NOTIFICATIONS = "dropped-notifications"

NO_RESULT = "[no result was recorded for this call]"


def head_tail(text: str, limit: int) -> str:
    """`text` if it fits in `limit` characters, else its head and tail around a marker."""
    if len(text) <= limit:
        return text
    half = max(limit // 2, 1)
    omitted = len(text) - 2 * half
    return f"{text[:half]}\n[... {omitted} characters omitted ...]\n{text[-half:]}"


@dataclass(slots=True)
class Renderer:
    """Renders entries in order, and can resume when more entries arrive."""

    inline_chars: int = 16_000
    messages: list[Message] = field(default_factory=list)
    entries: list[Entry] = field(default_factory=list)
    #: Calls of the last assistant message still waiting for their result: id -> tool name.
    _open: dict[str, str] = field(default_factory=dict)
    #: Entries that arrived while calls were open, shown once the results are in.
    _deferred: list[Entry] = field(default_factory=list)

    def extends(self, entries: list[Entry]) -> bool:
        """Is `entries` what was rendered so far, plus possibly more?"""
        n = len(self.entries)
        return len(entries) >= n and entries[:n] == self.entries

    def feed(self, entries: list[Entry]) -> None:
        for entry in entries:
            self._add(entry)
        self.entries.extend(entries)

    def view(self) -> list[Message]:
        """The messages so far, well-formed even if calls are still open: their results are
        placeholders, then what waited for them. Does not change the renderer."""
        if not self._open:
            return list(self.messages)
        closing = Renderer(
            self.inline_chars, list(self.messages), [], dict(self._open), list(self._deferred)
        )
        closing._close()
        return closing.messages

    def _close(self) -> None:
        """Give every open call a placeholder result, then show what waited for them."""
        for call_id, name in self._open.items():
            self.messages.append(Message("tool", NO_RESULT, tool_call_id=call_id, name=name))
        self._open = {}
        waiting, self._deferred = self._deferred, []
        for entry in waiting:
            self._add(entry)

    def _add(self, entry: Entry) -> None:
        kind = entry.kind
        if kind is EntryKind.TOOL_RESULT and entry.tool_call_id in self._open:
            self._answer(entry)
        elif kind is EntryKind.TOOL_CALL:
            if self._open and self.messages[-1].role != "assistant":
                self._close()  # the earlier calls never got results (a crash, say)
            self._call(entry)
        elif self._open:
            self._deferred.append(entry)
        else:
            self._show(entry)

    def _answer(self, entry: Entry) -> None:
        call_id = entry.tool_call_id or ""
        content = head_tail(entry.content, self.inline_chars)
        self.messages.append(Message("tool", content, tool_call_id=call_id, name=entry.tool_name))
        del self._open[call_id]
        if not self._open:
            self._close()

    def _call(self, entry: Entry) -> None:
        messages = self.messages
        call = ToolCall(entry.tool_call_id or entry.id, entry.tool_name or "", _args(entry))
        last = messages[-1] if messages else None
        if last is not None and last.role == "assistant":
            messages[-1] = replace(last, tool_calls=(*last.tool_calls, call))
        else:
            messages.append(Message("assistant", "", (call,)))
        self._open[call.id] = call.name

    def _show(self, entry: Entry) -> None:
        kind, messages = entry.kind, self.messages
        if kind is EntryKind.USER:
            messages.append(Message("user", entry.content))
        elif kind is EntryKind.ASSISTANT:
            last = messages[-1] if messages else None
            if last is not None and last.role == "assistant":
                joined = f"{last.content}\n\n{entry.content}" if last.content else entry.content
                messages[-1] = Message("assistant", joined, last.tool_calls)
            else:
                messages.append(Message("assistant", entry.content))
        elif kind is EntryKind.TOOL_RESULT:  # its call is not open: late, or compacted away
            label = entry.tool_name or "tool"
            content = head_tail(entry.content, self.inline_chars)
            messages.append(
                Message("user", f"[result of {label} call {entry.tool_call_id}]\n{content}")
            )
        elif kind is EntryKind.COMPACTION:
            if entry.tag != DROPPED_NOTIFICATIONS:  # that one is bookkeeping only
                messages.append(
                    Message("user", f"[summary of the earlier conversation]\n{entry.content}")
                )
        elif kind is EntryKind.NOTIFICATION:
            tag = f" {entry.tag}" if entry.tag else ""
            messages.append(Message("user", f"[notification{tag}]\n{entry.content}"))


def _args(entry: Entry) -> dict[str, object]:
    try:
        value = json.loads(entry.content) if entry.content else {}
    except ValueError:
        return {"_raw": entry.content}
    return value if isinstance(value, dict) else {"_value": value}
