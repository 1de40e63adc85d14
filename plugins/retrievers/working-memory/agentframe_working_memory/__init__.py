"""A rolling per-session summary for agentframe (`use: working-memory`)."""

from __future__ import annotations

from .options import WorkingMemoryOptions

__all__ = ["WorkingMemoryOptions"]
