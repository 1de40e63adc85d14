"""Sessions as JSON Lines: what `agentframe sessions export` writes and `import` reads back.

One line per stored entry, each session's entries in `history()` order:

    {"session_id": "s1", "entry": {"id": ..., "kind": "user", ...}, "pending": false,
     "subsumed": false}

`entry` is `Entry.to_dict()`. Reading checks every line before returning anything, so an
import either has all of a file or none of it; a bad line is reported with its file and line.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..contract.errors import AgentframeError
from ..contract.model import Entry, EntryKind
from ..contract.protocols import StoredEntry

__all__ = ["IMPORT_LIMIT", "TransferError", "dump_line", "read_lines"]

#: Bytes of one export file `sessions import` reads (it holds every record in memory).
IMPORT_LIMIT = 256 << 20


class TransferError(AgentframeError):
    """A session cannot be written as, or read from, JSON Lines; the message says where."""


class _EntryLine(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    kind: EntryKind
    content: str = ""
    tool_call_id: str | None = None
    tool_name: str | None = None
    tag: str | None = None
    origin: Any = None
    created_at: int
    meta: dict[str, Any] = Field(default_factory=dict)


class _Line(BaseModel):
    model_config = ConfigDict(extra="forbid")

    session_id: str = Field(min_length=1)
    entry: _EntryLine
    pending: bool = False
    subsumed: bool = False


def dump_line(session_id: str, record: StoredEntry) -> str:
    """One line of JSON (without the newline) for one stored entry."""
    line = {
        "session_id": session_id,
        "entry": record.entry.to_dict(),
        "pending": record.pending,
        "subsumed": record.subsumed,
    }
    try:
        return json.dumps(line, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as err:
        raise TransferError(
            f"session {session_id!r}, entry {record.entry.id!r}: not JSON-serialisable: {err}"
        ) from err


def read_lines(lines: Iterable[str], source: str) -> dict[str, list[StoredEntry]]:
    """Every session of a JSON Lines export, its records in file order. Blank lines are
    skipped; anything else that is not a valid record raises `TransferError`."""
    sessions: dict[str, list[StoredEntry]] = {}
    first_seen: dict[tuple[str, str], int] = {}
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            line = _Line.model_validate_json(text, strict=True)
        except ValidationError as err:
            raise TransferError(f"{source}:{number}: {_describe(err)}") from None
        key = (line.session_id, line.entry.id)
        if key in first_seen:
            raise TransferError(
                f"{source}:{number}: entry {line.entry.id!r} of session {line.session_id!r} "
                f"already appears on line {first_seen[key]}"
            )
        first_seen[key] = number
        entry = Entry(**line.entry.model_dump())
        record = StoredEntry(entry, pending=line.pending, subsumed=line.subsumed)
        sessions.setdefault(line.session_id, []).append(record)
    return sessions


def _describe(err: ValidationError) -> str:
    problems = []
    for error in err.errors(include_url=False):
        where = ".".join(str(part) for part in error["loc"])
        problems.append(f"{where}: {error['msg']}" if where else error["msg"])
    return "; ".join(problems)
