"""What a run reports about the work its parts did: compactions and retrievals."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["CompactionReport", "RetrievalReport"]


@dataclass(frozen=True, slots=True)
class CompactionReport:
    summary: str
    subsumed: int
    tokens_before: int
    tokens_after: int

    def to_json(self) -> dict[str, Any]:
        return {
            "summary": self.summary,
            "subsumed": self.subsumed,
            "tokens_before": self.tokens_before,
            "tokens_after": self.tokens_after,
        }


@dataclass(frozen=True, slots=True)
class RetrievalReport:
    """What one retriever returned for one run."""

    retriever: str
    query: str
    snippets: int
    chars: int
    budget_tokens: int
    seconds: float
    sources: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "retriever": self.retriever,
            "query": self.query,
            "snippets": self.snippets,
            "chars": self.chars,
            "budget_tokens": self.budget_tokens,
            "seconds": round(self.seconds, 6),
            "sources": self.sources,
        }
