"""RunContext: what a part sees of the session it is working for."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .agent import AgentDefinition
    from .compaction import CompactionReport
    from .stack import Stack

__all__ = ["RunContext"]


@dataclass(slots=True)
class RunContext:
    """Passed to every part method that runs inside a session.

    This is the one way parts reach each other: `ctx.stack.store`, `ctx.stack.adapter`, ...
    A context builder that compacts appends a `CompactionReport` to `compactions`; the turn
    reports them in its `TurnResult`, through `report_compaction`, which also tells the run's
    `on_compaction` callback at once.
    """

    session_id: str
    stack: Stack
    agent: AgentDefinition | None = None
    compactions: list[CompactionReport] = field(default_factory=list)
    on_compaction: Callable[[CompactionReport], Any] | None = None

    def report_compaction(self, report: CompactionReport) -> None:
        """Record a compaction for the turn's result and tell the callback (whose failure
        never stops the turn)."""
        self.compactions.append(report)
        if self.on_compaction is not None:
            try:
                self.on_compaction(report)
            except Exception:
                logging.getLogger("agentframe.session").exception(
                    "the on_compaction callback raised; the run goes on"
                )
