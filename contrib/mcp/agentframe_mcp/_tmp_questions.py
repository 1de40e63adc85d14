# TEMPORARY until the kernel's Questions contract lands on main (then removed).
from __future__ import annotations
from dataclasses import dataclass
from typing import Any, Literal

try:
    from agentframe_core import Answer, Question  # type: ignore[attr-defined]
except ImportError:
    @dataclass(frozen=True)
    class Question:  # type: ignore[no-redef]
        message: str
        schema: dict[str, Any] | None = None
        source: str = ""

    @dataclass(frozen=True)
    class Answer:  # type: ignore[no-redef]
        action: Literal["accept", "decline", "cancel"]
        content: dict[str, Any] | None = None
        reason: str = ""
