"""agentframe adapter for the Anthropic Messages API."""

from __future__ import annotations

from .adapter import AnthropicAdapter
from .errors import (
    AuthenticationError,
    BadRequestError,
    ConnectionFailedError,
    LLMError,
    ModelNotFoundError,
    OverloadedError,
    ProtocolError,
    RateLimitError,
    ServerError,
    StreamInterruptedError,
)
from .options import AnthropicOptions

__all__ = [
    "AnthropicAdapter",
    "AnthropicOptions",
    "AuthenticationError",
    "BadRequestError",
    "ConnectionFailedError",
    "LLMError",
    "ModelNotFoundError",
    "OverloadedError",
    "ProtocolError",
    "RateLimitError",
    "ServerError",
    "StreamInterruptedError",
]
