"""Long-term memory for agentframe (`use: memory-bm25`): Markdown files, an incremental BM25
index, model selection and budgeted loading. The bank is `agentframe_memory.bank.MemoryBank`
(importing this package does not import bm25s or numpy)."""

from __future__ import annotations

from .options import MemoryOptions

__all__ = ["MemoryOptions"]
