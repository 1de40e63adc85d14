"""Agent Skills for agentframe (`use: skills`): an index of names and descriptions in the tool
list, `load_skill(name)`, and BM25 preloading of the best-matching skill."""

from __future__ import annotations

from .options import SkillsOptions

__all__ = ["SkillsOptions"]
