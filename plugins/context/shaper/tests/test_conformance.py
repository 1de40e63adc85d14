"""The shaper passes the kernel's context-builder kit, squeezed hard enough that stubs and
compaction (by a model that fails: the kit's scripted adapter has no replies) happen."""

from __future__ import annotations

import pytest
from agentframe_shaper import Shaper, ShaperOptions

from agentframe_core import ContextBuilder
from agentframe_core.testing import ContextBuilderConformance


class TestShaperConformance(ContextBuilderConformance):  # type: ignore[misc]
    @pytest.fixture
    def builder(self) -> ContextBuilder:
        return Shaper(
            ShaperOptions(
                budget_tokens=700,
                pristine_messages=2,
                pristine_tool_exchanges=1,
                lod_above_chars=100,
                stub_head_chars=40,
                summary_max_tokens=64,
            )
        )
