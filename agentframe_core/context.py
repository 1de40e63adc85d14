"""RunContext: what a part sees of the session it is working for."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .agent import AgentDefinition
    from .compaction import CompactionReport
    from .retrieval import RetrievalReport
    from .stack import Stack

__all__ = ["RunContext"]


@dataclass(slots=True)
class RunContext:
    """Passed to every part method that runs inside a session.

    This is the one way parts reach each other: `ctx.stack.store`, `ctx.stack.adapter`, ...
    A context builder that compacts appends a `CompactionReport` to `compactions`; the turn
    reports them in its `TurnResult`, with what each retriever returned (`retrievals`).
    """

    session_id: str
    stack: Stack
    agent: AgentDefinition | None = None
    compactions: list[CompactionReport] = field(default_factory=list)
    retrievals: list[RetrievalReport] = field(default_factory=list)
