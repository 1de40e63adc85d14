"""The session as a Claude Code transcript: one JSON object a line, the file hooks are given.

Each user message, assistant reply, tool call and tool result is a line shaped as Claude
Code writes them (`type`, `uuid`, `parentUuid`, `sessionId`, `timestamp`, `cwd`, and a
`message` with `role` and `content`: text, `tool_use` and `tool_result` blocks). The file is
rewritten whole (atomically) before hooks run, from what the store shows of the session.
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agentframe_core import Entry, EntryKind, RunContext, atomic_write, data_dir

__all__ = ["transcript_lines", "transcript_path", "write_transcript"]

_PLAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")


def transcript_path(session_id: str) -> Path:
    """The session's file; an id that is no plain file name (`--session ../x`) is hashed."""
    name = session_id
    if not _PLAIN.fullmatch(session_id):
        name = hashlib.sha256(session_id.encode()).hexdigest()[:32]
    return data_dir() / "claude-transcripts" / f"{name}.jsonl"


async def write_transcript(ctx: RunContext, cwd: Path) -> Path:
    """Write the session's transcript; its path."""
    entries = await ctx.stack.store.context(ctx.session_id)
    path = transcript_path(ctx.session_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = transcript_lines(entries, ctx.session_id, cwd)
    atomic_write(path, "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines))
    return path


def transcript_lines(entries: list[Entry], session_id: str, cwd: Path) -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = []
    parent: str | None = None
    for entry in entries:
        message = _message(entry)
        if message is None:
            continue
        line: dict[str, Any] = {
            "parentUuid": parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": str(cwd),
            "sessionId": session_id,
            "type": message["role"],
            "message": message,
            "uuid": entry.id,
            "timestamp": datetime.fromtimestamp(entry.created_at / 1e9, UTC).isoformat(),
        }
        lines.append(line)
        parent = entry.id
    return lines


def _message(entry: Entry) -> dict[str, Any] | None:
    kind = entry.kind
    if kind in (EntryKind.USER, EntryKind.NOTIFICATION):
        return {"role": "user", "content": entry.content}
    if kind is EntryKind.ASSISTANT and entry.content:  # an empty one preceded tool calls
        return {"role": "assistant", "content": [{"type": "text", "text": entry.content}]}
    if kind is EntryKind.TOOL_CALL:
        try:
            arguments = json.loads(entry.content) if entry.content else {}
        except ValueError:
            arguments = {"raw": entry.content}
        block = {
            "type": "tool_use",
            "id": entry.tool_call_id,
            "name": entry.tool_name,
            "input": arguments,
        }
        return {"role": "assistant", "content": [block]}
    if kind is EntryKind.TOOL_RESULT:
        block = {
            "type": "tool_result",
            "tool_use_id": entry.tool_call_id,
            "content": entry.content,
            "is_error": bool(entry.meta.get("is_error")),
        }
        return {"role": "user", "content": [block]}
    return None  # compaction markers
