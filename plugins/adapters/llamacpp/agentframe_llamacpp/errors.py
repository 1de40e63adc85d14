"""Errors of the llama.cpp runtime; each says what to do next."""

from __future__ import annotations

from agentframe_core import AgentframeError

__all__ = [
    "BinaryNotFoundError",
    "CorruptModelError",
    "ModelFetchError",
    "ReserveError",
    "RuntimeFailure",
    "ServerStartError",
    "UnknownModelError",
]


class RuntimeFailure(AgentframeError):
    """Base of the runtime's errors."""


class BinaryNotFoundError(RuntimeFailure):
    pass


class UnknownModelError(RuntimeFailure):
    pass


class ModelFetchError(RuntimeFailure):
    pass


class CorruptModelError(RuntimeFailure):
    pass


class ReserveError(RuntimeFailure):
    """Starting a server or fetching a model would eat into the memory or disk reserve."""


class ServerStartError(RuntimeFailure):
    """llama-server exited or never became healthy; the message carries its log's tail."""
