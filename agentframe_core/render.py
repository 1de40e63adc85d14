"""Entries -> Messages: the one rendering every context builder can reuse.

Rules, so that any backend accepts the result:
- an assistant entry and the tool calls that follow it form ONE assistant message, and two
  assistant entries in a row are merged: two assistant messages never follow each other;
- a tool result follows the assistant message that made its call; a result whose call is not
  in the rendered context (compacted away, or the late result of a parked call) is shown as a
  user message naming the tool, so it is never orphaned;
- tool results longer than `inline_chars` are shown as a head+tail view; the store keeps
  them whole.

`Renderer` is incremental: rendering a context that extends the previous one costs only the
new entries.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from .model import Entry, EntryKind, Message, ToolCall

__all__ = ["DROPPED_NOTIFICATIONS", "Renderer", "head_tail", "render_entries"]

#: Tag of the compaction marker the loop writes when plugins drop stale notifications.
DROPPED_NOTIFICATIONS = "dropped-notifications"


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
    _calls: dict[str, bool] = field(default_factory=dict)  # call id -> has a result

    def extends(self, entries: list[Entry]) -> bool:
        """Is `entries` what was rendered so far, plus possibly more?"""
        n = len(self.entries)
        return len(entries) >= n and entries[:n] == self.entries

    def feed(self, entries: list[Entry]) -> None:
        for entry in entries:
            self._add(entry)
        self.entries.extend(entries)

    def _add(self, entry: Entry) -> None:
        kind = entry.kind
        messages = self.messages
        if kind is EntryKind.USER:
            messages.append(Message("user", entry.content))
        elif kind is EntryKind.ASSISTANT:
            last = messages[-1] if messages else None
            if last is not None and last.role == "assistant":
                joined = f"{last.content}\n\n{entry.content}" if last.content else entry.content
                messages[-1] = Message("assistant", joined, last.tool_calls)
            else:
                messages.append(Message("assistant", entry.content))
        elif kind is EntryKind.TOOL_CALL:
            call = ToolCall(entry.tool_call_id or entry.id, entry.tool_name or "", _args(entry))
            last = messages[-1] if messages else None
            if last is not None and last.role == "assistant":
                messages[-1] = Message("assistant", last.content, (*last.tool_calls, call))
            else:
                messages.append(Message("assistant", "", (call,)))
            self._calls[call.id] = False
        elif kind is EntryKind.TOOL_RESULT:
            content = head_tail(entry.content, self.inline_chars)
            call_id = entry.tool_call_id or ""
            last = messages[-1] if messages else None
            adjacent = last is not None and (
                (last.role == "assistant" and any(c.id == call_id for c in last.tool_calls))
                or last.role == "tool"
            )
            if self._calls.get(call_id) is False and adjacent:
                messages.append(
                    Message("tool", content, tool_call_id=call_id, name=entry.tool_name)
                )
                self._calls[call_id] = True
            else:
                label = entry.tool_name or "tool"
                messages.append(Message("user", f"[result of {label} call {call_id}]\n{content}"))
        elif kind is EntryKind.COMPACTION:
            if entry.tag == DROPPED_NOTIFICATIONS:
                return  # bookkeeping only: the model need not know what was dropped
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


def render_entries(entries: list[Entry], inline_chars: int = 16_000) -> list[Message]:
    renderer = Renderer(inline_chars)
    renderer.feed(entries)
    return renderer.messages
