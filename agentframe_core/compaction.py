"""What a run reports about a compaction that happened while building its context."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CompactionReport"]


@dataclass(frozen=True, slots=True)
class CompactionReport:
    summary: str
    subsumed: int
    tokens_before: int
    tokens_after: int
