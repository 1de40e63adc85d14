"""Small harmless tools for the embedded default stack and the docs."""

from __future__ import annotations

from datetime import datetime

from .engine.functions import tool


@tool(writes=False)
async def add(a: float, b: float) -> float:
    """Add two numbers and return the sum.

    Args:
        a: the first number
        b: the second number
    """
    return a + b


@tool(writes=False)
async def current_time() -> str:
    """The current local date and time, ISO 8601."""
    return datetime.now().astimezone().isoformat(timespec="seconds")
