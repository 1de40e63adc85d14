"""The options of `memory-bm25` (the retriever and the tools read the same block)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, NonNegativeInt, PositiveInt, field_validator

from agentframe_core import data_dir

__all__ = ["SCOPE_PATTERN", "MemoryOptions", "default_root"]

SCOPE_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"


def default_root() -> Path:
    """`$XDG_DATA_HOME/agentframe/memory`, else `~/.local/share/agentframe/memory`."""
    return data_dir() / "memory"


class MemoryOptions(BaseModel):
    """`retrievers: [{use: memory-bm25, scope: user}]` and `tools: [{use: memory-bm25}]`."""

    model_config = ConfigDict(extra="forbid")

    folder: Path = Field(
        default_factory=default_root,
        description="Root of the memory folders; memories live in <folder>/<scope>/<category>/.",
    )
    scope: str = Field(
        default="user",
        pattern=SCOPE_PATTERN,
        description="Whose memories: `user`, or a project or agent name (one folder each).",
    )
    mode: Literal["bm25", "hybrid"] = Field(
        default="bm25",
        description="hybrid: fuse BM25 with embedding similarity (reciprocal rank fusion) when "
        "the adapter offers embeddings; otherwise BM25, said once.",
    )
    candidates: PositiveInt = Field(default=8, le=50, description="Stage 1: BM25 top-k.")
    select: bool = Field(
        default=True,
        description="Stage 2: let the model choose which candidates to load (skipped when "
        "they all fit the budget).",
    )
    max_selected: PositiveInt = Field(default=5, le=20, description="Stage 2: at most this many.")
    min_score: float = Field(default=0.0, ge=0, description="Candidates below are dropped.")
    max_file_bytes: PositiveInt = Field(
        default=256_000, description="Larger memory files are skipped and reported."
    )
    duplicate_threshold: float = Field(
        default=0.8,
        gt=0,
        le=1,
        description="A new memory whose content words overlap an existing one of its category this "
        "much (Jaccard), or with the same title, updates it instead.",
    )
    stem: bool = Field(default=True, description="Snowball-stem English words.")
    embedding_candidates: NonNegativeInt = Field(
        default=2_000, description="hybrid: memories embedded per query at most (the rest wait)."
    )

    @field_validator("folder")
    @classmethod
    def _expand(cls, folder: Path) -> Path:
        return folder.expanduser()

    @property
    def scope_folder(self) -> Path:
        return self.folder / self.scope
