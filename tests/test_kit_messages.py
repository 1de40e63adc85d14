"""A part that breaks a kit's rule is told which values broke it, not a bare AssertionError."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BROKEN_PARTS = """
import pytest
from agentframe_core import MemoryStore, Snippet, Tool, ToolCall, ToolResult
from agentframe_core.testing import (
    RetrieverConformance, StoreConformance, ToolDispatcherConformance,
)


class Greedy:
    async def retrieve(self, query, *, ctx, budget_tokens):
        return [Snippet("x" * 100, "a", 1.0)]


class TestGreedy(RetrieverConformance):
    @pytest.fixture
    def retriever(self):
        return Greedy()

    @pytest.fixture
    def query(self):
        return "x"


class OldestFirst(MemoryStore):
    async def sessions(self):
        return list(reversed(await super().sessions()))


class TestOldestFirst(StoreConformance):
    @pytest.fixture
    def store(self):
        return OldestFirst()


class Lenient:
    async def tools(self, ctx):
        return [Tool(name="echo", description="Echo.", parameters={"type": "object"})]

    async def dispatch(self, call, ctx):
        return ToolResult("whatever you asked")


class TestLenient(ToolDispatcherConformance):
    @pytest.fixture
    def dispatcher(self):
        return Lenient()

    @pytest.fixture
    def sample_calls(self):
        return [ToolCall("1", "echo", {})]
"""


def test_kit_failures_show_the_values(tmp_path: Path) -> None:
    (tmp_path / "test_broken.py").write_text(BROKEN_PARTS)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-o",
            "asyncio_mode=auto",
            "-k",
            "budget or recency or unknown_tool",
            "test_broken.py",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    out = done.stdout
    assert "a budget of 0 tokens allows 0 in total" in out and "assert 100 <= 0" in out, out
    assert "assert ['kit-" in out, out  # the session ids in the wrong order
    assert "a call to the unknown tool 'no-such-tool-anywhere' did not fail" in out, out
    assert "ToolResult(content='whatever you asked'" in out, out
