"""Fixtures shared by the kernel tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from agentframe_core import FunctionToolset
from agentframe_core.contract.configtypes import Limits
from agentframe_core.contract.protocols import Stack
from agentframe_core.parts.memorystore import MemoryStore
from agentframe_core.parts.verbatim import VerbatimBuilder
from agentframe_core.testing import ScriptedAdapter


@pytest.fixture
def make_stack() -> Callable[..., Stack]:
    def make(
        replies: list[Any],
        tools: list[Any] | None = None,
        *,
        native_tools: bool = True,
        json_schema: bool = False,
        **limits: Any,
    ) -> Stack:
        adapter = ScriptedAdapter(replies, native_tools=native_tools, json_schema=json_schema)
        return Stack(
            adapter=adapter,
            store=MemoryStore(),
            context=VerbatimBuilder(),
            tools=[FunctionToolset(tools)] if tools else [],
            limits=Limits(**limits),
        )

    return make
