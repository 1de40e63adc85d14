"""agentframe runtime for llama.cpp: runs `llama-server` for local models, and an adapter."""

from __future__ import annotations

from .adapter import LlamaCppAdapter
from .errors import (
    BinaryNotFoundError,
    CorruptModelError,
    ModelFetchError,
    ReserveError,
    RuntimeFailure,
    ServerStartError,
    UnknownModelError,
)
from .options import LlamaCppOptions, ModelOptions
from .runtime import LlamaRuntime

__all__ = [
    "BinaryNotFoundError",
    "CorruptModelError",
    "LlamaCppAdapter",
    "LlamaCppOptions",
    "LlamaRuntime",
    "ModelFetchError",
    "ModelOptions",
    "ReserveError",
    "RuntimeFailure",
    "ServerStartError",
    "UnknownModelError",
]
