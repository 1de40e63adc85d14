"""`memory-bm25` passes the kernel's retriever kit, with model selection on and off."""

from __future__ import annotations

from pathlib import Path

import pytest
from agentframe_memory.bank import MemoryBank
from agentframe_memory.options import MemoryOptions
from agentframe_memory.retriever import MemoryRetriever

from agentframe_core.testing import RetrieverConformance


class TestMemoryConformance(RetrieverConformance):
    @pytest.fixture(params=[True, False], ids=["select", "no-select"])
    def retriever(
        self, request: pytest.FixtureRequest, tmp_path: Path, facts: list
    ) -> MemoryRetriever:
        options = MemoryOptions(folder=tmp_path / "memory", select=request.param)
        bank = MemoryBank(options.scope_folder)
        for title, content, category, tags in facts * 2:  # repeats: near-duplicates update
            bank.remember(title, content, category, tags)
        for n in range(20):
            bank.remember(f"Server note {n}", f"Server {n} runs service {n * 7}.", "servers", ())
        bank.close()
        return MemoryRetriever(options)

    @pytest.fixture
    def query(self) -> str:
        return "where does production run?"
