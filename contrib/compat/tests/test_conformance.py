"""Every compat loader passes the AgentLoader conformance kit, in its own format."""

from __future__ import annotations

import pytest
from agentframe_compat import ClaudeLoader, KigiLoader, PiLoader

from agentframe_core.testing import AgentLayout, AgentLoaderConformance


class TestClaudeLoader(AgentLoaderConformance):
    layout = AgentLayout(project=".claude/agents", user=".claude/agents")

    @pytest.fixture
    def loader(self) -> ClaudeLoader:
        return ClaudeLoader()

    def render(self, name: str, description: str, body: str) -> str:
        return (
            f"---\nname: {name}\ndescription: {description}\n"
            f"tools: Read, Grep, Bash\nmodel: inherit\ncolor: green\n---\n\n{body}\n"
        )


class TestPiLoader(AgentLoaderConformance):
    layout = AgentLayout(project=".pi/agents", user=".pi/agent/agents")

    @pytest.fixture
    def loader(self) -> PiLoader:
        return PiLoader()

    def render(self, name: str, description: str, body: str) -> str:
        return (
            f"---\nname: {name}\ndescription: {description}\n"
            f"tools: read, bash\nmodel: anthropic/claude-haiku-4-5\nthinking: low\n---\n{body}\n"
        )


class TestKigiLoader(AgentLoaderConformance):
    layout = AgentLayout(project=".kigi/agents", user=".kigi/agents")

    @pytest.fixture
    def loader(self) -> KigiLoader:
        return KigiLoader()
