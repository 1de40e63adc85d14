"""A minimal stack for kits that need a RunContext."""

from __future__ import annotations

from typing import Any

from agentframe_core.contract.protocols import RunContext, Stack
from agentframe_core.parts.memorystore import MemoryStore
from agentframe_core.parts.scripted import ScriptedAdapter
from agentframe_core.parts.verbatim import VerbatimBuilder


def reference_stack(**parts: Any) -> Stack:
    defaults: dict[str, Any] = {
        "adapter": ScriptedAdapter(),
        "store": MemoryStore(),
        "context": VerbatimBuilder(),
    }
    return Stack(**{**defaults, **parts})


def run_context(stack: Stack | None = None, session_id: str = "conformance") -> RunContext:
    return RunContext(session_id, stack or reference_stack())
