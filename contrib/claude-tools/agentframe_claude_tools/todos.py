"""`TodoWrite`: the session's todo list, replaced whole by each call, as in Claude Code.

The list is kept through the stack's store, in the side session `<session id>:todos` (one
entry per update), so it is durable, survives the conversation's compaction, follows the
session across processes and is deleted, exported and pruned with the stack's sessions
like any other.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from agentframe_core import Entry, EntryKind, RunContext

__all__ = ["RESULT", "TAG", "current_todos", "write_todos"]

log = logging.getLogger("agentframe.claude_tools")

TAG = "todos"
RESULT = (
    "Todos have been modified successfully. Ensure that you continue to use the todo list to "
    "track your progress. Please proceed with the current tasks if applicable"
)


def side_session(session_id: str) -> str:
    return f"{session_id}:{TAG}"


async def current_todos(ctx: RunContext) -> list[dict[str, Any]]:
    """The latest list written in this session ([] before the first)."""
    for entry in reversed(await ctx.stack.store.context(side_session(ctx.session_id))):
        if entry.tag != TAG:
            continue
        try:
            todos = json.loads(entry.content)
        except ValueError as err:
            log.warning("todo list entry %s unreadable (%s); skipped", entry.id, err)
            continue
        if isinstance(todos, list):
            return todos
    return []


async def write_todos(ctx: RunContext, todos: list[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    """Store `todos` as the session's list: the result text and its meta (old and new)."""
    old = await current_todos(ctx)
    await ctx.stack.store.append(
        side_session(ctx.session_id),
        Entry(kind=EntryKind.ASSISTANT, content=json.dumps(todos, ensure_ascii=False), tag=TAG),
    )
    return RESULT, {"oldTodos": old, "newTodos": todos}
