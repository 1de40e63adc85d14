"""The tool of the approval test: it parks its call; the result comes by `agentframe send`."""

from __future__ import annotations

from agentframe_core import ToolResult


def request_approval(item: str) -> ToolResult:
    """Ask a human to approve `item`."""
    return ToolResult(content=f"waiting for a human to approve {item}", pending=True)
