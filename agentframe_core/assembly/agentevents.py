"""What `Agent.run_stream` yields: the run's callbacks (`on_token`, `on_tool`, `on_event`) as
one stream of values, and the result last."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..engine.session import RunResult
from ..engine.toolbox import ToolCallRecord

__all__ = ["ProgressEvent", "ResultEvent", "RunEvent", "TokenEvent", "ToolEvent"]


@dataclass(frozen=True, slots=True)
class TokenEvent:
    """Text of the reply as the model streams it (what is for the user only)."""

    text: str


@dataclass(frozen=True, slots=True)
class ToolEvent:
    """A tool call that ran: `record.name`, `record.arguments`, `record.content`."""

    record: ToolCallRecord


@dataclass(frozen=True, slots=True)
class ProgressEvent:
    """Progress a part reported (`RunContext.emit`: a sub-agent's steps, say)."""

    kind: str
    data: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ResultEvent:
    """The run ended: always the last event."""

    result: RunResult


RunEvent = TokenEvent | ToolEvent | ProgressEvent | ResultEvent
