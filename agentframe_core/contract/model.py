"""The data model: durable Entries, wire Messages, and what flows between them.

Entries are what a Store keeps; Messages are what an adapter sends. A ContextBuilder turns the
first into the second. Everything here is a plain frozen dataclass: cheap to build on the hot
path, validated at the edges (import, config) with pydantic's TypeAdapter.
"""

from __future__ import annotations

import functools
import itertools
import threading
import time
import uuid
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal

__all__ = [
    "Compaction",
    "Entry",
    "EntryKind",
    "Message",
    "SessionInfo",
    "ToolCall",
    "new_id",
    "now_ns",
    "session_title",
]


class EntryKind(StrEnum):
    USER = "user"
    ASSISTANT = "assistant"
    TOOL_CALL = "tool_call"
    TOOL_RESULT = "tool_result"
    COMPACTION = "compaction"
    NOTIFICATION = "notification"


_clock_lock = threading.Lock()
_last_ns = 0


def now_ns() -> int:
    """Wall-clock nanoseconds, strictly increasing within this process.

    `created_at` is the ordering key of a session, so two entries made in the same tick must
    still sort in the order they were made.
    """
    global _last_ns
    with _clock_lock:
        _last_ns = max(_last_ns + 1, time.time_ns())
        return _last_ns


_id_counter = itertools.count()
_id_prefix = uuid.uuid4().hex[:12]


def new_id() -> str:
    """A unique, short, sortable-within-process id (cheaper than uuid4 on the hot path)."""
    return f"{_id_prefix}{next(_id_counter):010x}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Entry:
    """One durable record of a conversation.

    `origin` is opaque host provenance: stores round-trip it untouched. `meta` holds extras
    (usage, the full size of a truncated tool result, ...) and must be JSON-serialisable.
    """

    kind: EntryKind
    content: str = ""
    id: str = field(default_factory=new_id)
    tool_call_id: str | None = None
    tool_name: str | None = None
    tag: str | None = None
    origin: Any = None
    created_at: int = field(default_factory=now_ns)
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if type(self.kind) is not EntryKind:
            object.__setattr__(self, "kind", EntryKind(self.kind))

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind.value,
            "content": self.content,
            "tool_call_id": self.tool_call_id,
            "tool_name": self.tool_name,
            "tag": self.tag,
            "origin": self.origin,
            "created_at": self.created_at,
            "meta": self.meta,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Entry:
        """Build an Entry from untrusted data, raising pydantic.ValidationError on bad input."""
        entry: Entry = _entry_validator().validate_python(data)
        return entry


@functools.cache
def _entry_validator() -> Any:
    """Built once: constructing a pydantic TypeAdapter costs about a millisecond."""
    from pydantic import TypeAdapter

    return TypeAdapter(Entry)


@dataclass(frozen=True, slots=True)
class Compaction:
    """A summary `marker` (kind `compaction`) that replaces the entries listed in `subsumes`."""

    marker: Entry
    subsumes: frozenset[str]

    def __post_init__(self) -> None:
        if self.marker.kind is not EntryKind.COMPACTION:
            raise ValueError(
                f"a compaction marker must have kind 'compaction', not {self.marker.kind!r}"
            )
        if not isinstance(self.subsumes, frozenset):
            object.__setattr__(self, "subsumes", frozenset(self.subsumes))


#: The first character of the id of a session that holds a plugin's record, not a conversation
#: (`~serve.response.<key>.<id>`): docs/plugin-authoring.md, Store.
RECORD_PREFIX = "~"


@dataclass(frozen=True, slots=True)
class SessionInfo:
    id: str
    created_at: int
    updated_at: int
    entries: int
    title: str | None = None

    @property
    def is_record(self) -> bool:
        """A plugin's record kept as a session (its id starts with `~`), not a conversation:
        `sessions list` hides it, `--last` never picks it, `prune --keep-last` does not count it."""
        return self.id.startswith(RECORD_PREFIX)


def session_title(entry: Entry) -> str | None:
    """The title `SessionInfo` shows for a session whose first user message is `entry`: its
    first line, up to 80 characters (None if `entry` is no such message)."""
    if entry.kind is EntryKind.USER and entry.content.strip():
        return entry.content.strip().splitlines()[0][:80]
    return None


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A model's request to run a tool. `arguments` is already decoded from JSON."""

    id: str
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


Role = Literal["system", "user", "assistant", "tool"]


@dataclass(frozen=True, slots=True)
class Message:
    """The wire shape sent to a model (OpenAI chat-completions semantics)."""

    role: Role
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None
