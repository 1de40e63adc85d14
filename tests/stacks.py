"""Helpers shared by the kernel tests."""

from __future__ import annotations

from typing import Any


def call(name: str, **arguments: Any) -> dict[str, Any]:
    """A scripted reply that calls one tool."""
    return {"tool_calls": [{"name": name, "arguments": arguments}]}
