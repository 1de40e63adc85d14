"""claude-tools passes the kernel's ToolDispatcherConformance kit, every tool but WebFetch
(which needs a server: test_webfetch.py) among the sample calls."""

from __future__ import annotations

from pathlib import Path

import pytest
from agentframe_claude_tools import TOOL_NAMES, ClaudeTools, ClaudeToolsOptions

from agentframe_core import RunContext, ToolCall
from agentframe_core.testing import ToolDispatcherConformance


class TestClaudeToolsConformance(ToolDispatcherConformance):
    @pytest.fixture
    def dispatcher(self, project: Path) -> ClaudeTools:
        return ClaudeTools(ClaudeToolsOptions(root=project))

    @pytest.fixture
    def sample_calls(self) -> list[ToolCall]:
        return [
            ToolCall("1", "Read", {"file_path": "notes.txt", "offset": 2, "limit": 1}),
            ToolCall("2", "Write", {"file_path": "out/new.txt", "content": "same every time"}),
            # there and back: repeatable, as the kit needs
            ToolCall(
                "3",
                "MultiEdit",
                {
                    "file_path": "src/app.py",
                    "edits": [
                        {"old_string": "hello", "new_string": "HELLO"},
                        {"old_string": "HELLO", "new_string": "hello"},
                    ],
                },
            ),
            ToolCall("4", "Glob", {"pattern": "**/*.py"}),
            ToolCall("5", "Grep", {"pattern": "def \\w+", "output_mode": "content"}),
            ToolCall("6", "LS", {}),
            ToolCall("7", "Bash", {"command": "echo hi", "timeout": 20000}),
            ToolCall(
                "8",
                "TodoWrite",
                {"todos": [{"content": "Test", "status": "pending", "activeForm": "Testing"}]},
            ),
        ]


async def test_every_claude_code_tool_is_offered_with_its_read_only_mark(
    tools: ClaudeTools, ctx: RunContext
) -> None:
    offered = {t.name: t for t in await tools.tools(ctx)}
    assert list(offered) == list(TOOL_NAMES)
    read_only = {name for name, t in offered.items() if not t.writes}
    assert read_only == {"Read", "Glob", "Grep", "LS", "WebFetch"}


async def test_allow_bash_and_webfetch_options_choose_the_tools(
    project: Path, ctx: RunContext
) -> None:
    chosen = ClaudeTools(
        ClaudeToolsOptions(root=project, allow=["Read", "Bash", "WebFetch"], webfetch=False)
    )
    assert [t.name for t in await chosen.tools(ctx)] == ["Read", "Bash"]
    none = ClaudeTools(ClaudeToolsOptions(root=project, bash=False))
    assert "Bash" not in [t.name for t in await none.tools(ctx)]
    refused = await none.dispatch(ToolCall("1", "Bash", {"command": "true"}), ctx)
    assert refused.is_error
