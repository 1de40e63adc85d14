"""One finding of `agentframe doctor`: what was checked, whether it is fine, how to fix it."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Diagnosis"]


@dataclass(frozen=True, slots=True)
class Diagnosis:
    name: str
    ok: bool
    detail: str
    fix: str = ""
