"""TodoWrite: the list replaces the session's last one, is kept per session through the
stack's store (a side session), and survives a new dispatcher on the same store."""

from __future__ import annotations

from pathlib import Path

from agentframe_claude_tools import ClaudeTools

from agentframe_core import MemoryStore, RunContext, Stack, ToolCall, VerbatimBuilder
from agentframe_core.testing import ScriptedAdapter


def _ctx(store: MemoryStore, session: str) -> RunContext:
    return RunContext(session, Stack(ScriptedAdapter(), store, VerbatimBuilder()))


def _todos(*items: tuple[str, str]) -> dict[str, object]:
    return {"todos": [{"content": c, "status": s, "activeForm": f"{c}ing"} for c, s in items]}


async def test_the_list_is_kept_per_session(project: Path) -> None:
    store = MemoryStore()
    tools = ClaudeTools(root=project)
    first = await tools.dispatch(
        ToolCall("1", "TodoWrite", _todos(("Build", "in_progress"))), _ctx(store, "a")
    )
    assert first.content.startswith("Todos have been modified successfully.")
    assert first.meta["oldTodos"] == []
    await tools.dispatch(ToolCall("2", "TodoWrite", _todos(("Other", "pending"))), _ctx(store, "b"))

    again = ClaudeTools(root=project)  # a new dispatcher (another process) on the same store
    second = await again.dispatch(
        ToolCall("3", "TodoWrite", _todos(("Build", "completed"), ("Test", "pending"))),
        _ctx(store, "a"),
    )
    assert [t["status"] for t in second.meta["oldTodos"]] == ["in_progress"]
    assert [t["content"] for t in second.meta["newTodos"]] == ["Build", "Test"]
    assert await store.context("a") == []  # the conversation itself is untouched
    assert {s.id for s in await store.sessions()} == {"a:todos", "b:todos"}
