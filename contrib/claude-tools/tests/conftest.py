"""A project folder with a few files, a dispatcher confined to it, and a way to call a tool."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from agentframe_claude_tools import ClaudeTools, ClaudeToolsOptions

from agentframe_core import (
    MemoryStore,
    RunContext,
    Stack,
    ToolCall,
    ToolResult,
    VerbatimBuilder,
)
from agentframe_core.testing import ScriptedAdapter

Call = Callable[..., Awaitable[ToolResult]]


def context(store: MemoryStore | None = None, session_id: str = "s1") -> RunContext:
    stack = Stack(ScriptedAdapter(), store or MemoryStore(), VerbatimBuilder())
    return RunContext(session_id, stack)


@pytest.fixture
def ctx() -> RunContext:
    return context()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("def main():\n    return 'hello'\n")
    (root / "notes.txt").write_text("one\ntwo\nthree\n")
    return root


@pytest.fixture
def tools(project: Path) -> ClaudeTools:
    return ClaudeTools(ClaudeToolsOptions(root=project))


@pytest.fixture
def call(tools: ClaudeTools) -> Call:
    """`await call("Read", file_path=...)`: one dispatched call, schema-checked first as
    the loop checks it."""
    from jsonschema import Draft202012Validator

    async def run(name: str, ctx: RunContext | None = None, **arguments: Any) -> ToolResult:
        (spec,) = [t for t in await tools.tools(context()) if t.name == name]
        Draft202012Validator(spec.parameters).validate(arguments)
        return await tools.dispatch(ToolCall("c1", name, arguments), ctx or context())

    return run
