"""The options of `skills` (the retriever and the `load_skill` tool read the same block)."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, NonNegativeFloat

__all__ = ["SkillsOptions"]


class SkillsOptions(BaseModel):
    """`retrievers: [{use: skills}]` (preloading) and `tools: [{use: skills}]` (`load_skill`)."""

    model_config = ConfigDict(extra="forbid")

    folders: list[Path] = Field(
        default_factory=list,
        description="More skills folders, after .agentframe/skills and .claude/skills of the "
        "project and ~/.agentframe/skills.",
    )
    preload_threshold: NonNegativeFloat = Field(
        default=0.2,
        le=1.0,
        description="The retriever preloads the skill whose name and description the user's "
        "message covers best when that share (0-1: its BM25 score over the description's own) "
        "reaches this; 0 never preloads.",
    )
