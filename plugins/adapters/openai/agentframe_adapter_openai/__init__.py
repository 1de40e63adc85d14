"""agentframe adapter for OpenAI-compatible chat-completions endpoints."""

from __future__ import annotations

from .adapter import OpenAIAdapter
from .errors import (
    AuthenticationError,
    BadRequestError,
    ConnectionFailedError,
    LLMError,
    ModelNotFoundError,
    ProtocolError,
    RateLimitError,
    ServerError,
    StreamInterruptedError,
)
from .options import OpenAIOptions

__all__ = [
    "AuthenticationError",
    "BadRequestError",
    "ConnectionFailedError",
    "LLMError",
    "ModelNotFoundError",
    "OpenAIAdapter",
    "OpenAIOptions",
    "ProtocolError",
    "RateLimitError",
    "ServerError",
    "StreamInterruptedError",
]
