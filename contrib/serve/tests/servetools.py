"""Tools for the serve tests' stacks (`import: [servetools:nap]`)."""

from __future__ import annotations

import asyncio

from agentframe_core import tool


@tool(writes=False)
async def nap(seconds: float) -> str:
    """Waits, then says so."""
    await asyncio.sleep(seconds)
    return f"slept {seconds} s"
