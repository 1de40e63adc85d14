"""The kernel's reference store passes the Store conformance kit."""

from __future__ import annotations

import pytest

from agentframe_core.parts.memorystore import MemoryStore
from agentframe_core.testing import StoreConformance


class TestMemoryStore(StoreConformance):
    @pytest.fixture
    def store(self) -> MemoryStore:
        return MemoryStore()
