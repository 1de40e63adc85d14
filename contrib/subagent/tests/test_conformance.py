"""The `subagent` tool passes the kernel's ToolDispatcherConformance kit.

The kit's own context has a model with no replies, so the dispatcher under test runs its
children on a stack of its own (`stack=`), whose scripted model always answers.
"""

from __future__ import annotations

import pytest
from agentframe_subagent import SubagentTool

from agentframe_core import MemoryStore, Stack, ToolCall, VerbatimBuilder
from agentframe_core.testing import ScriptedAdapter, ToolDispatcherConformance


class TestSubagentConformance(ToolDispatcherConformance):
    @pytest.fixture
    def dispatcher(self, kit: object) -> SubagentTool:
        children = Stack(
            ScriptedAdapter(["the answer"], cycle=True), MemoryStore(), VerbatimBuilder()
        )
        return SubagentTool(agents=kit.agents, stack=children)  # type: ignore[attr-defined]

    @pytest.fixture
    def sample_calls(self) -> list[ToolCall]:
        return [
            ToolCall("1", "subagent", {"agent": "worker", "task": "answer"}),
            ToolCall("2", "subagent", {"tasks": [{"agent": "worker", "task": "a"}] * 3}),
            ToolCall(
                "3", "subagent", {"chain": [{"agent": "reviewer", "task": "{previous}."}] * 2}
            ),
        ]
