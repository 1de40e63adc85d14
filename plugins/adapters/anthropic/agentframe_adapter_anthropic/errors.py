"""Typed errors: each names the URL that failed and says what to do about it."""

from __future__ import annotations

from agentframe_core import AgentframeError

__all__ = [
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


class LLMError(AgentframeError):
    """A model call failed. `url` is the endpoint, `status` the HTTP status if any."""

    def __init__(self, message: str, *, url: str, status: int | None = None) -> None:
        super().__init__(message)
        self.url = url
        self.status = status


class AuthenticationError(LLMError):
    """401/403: the key is missing, wrong or lacks permission."""


class ModelNotFoundError(LLMError):
    """404 naming the model: the model id is wrong or not available to this key."""


class RateLimitError(LLMError):
    """429 after every retry (or a retry-after longer than `backoff_max`)."""


class ServerError(LLMError):
    """5xx after every retry, or an `error` event inside a stream."""


class OverloadedError(ServerError):
    """529 / `overloaded_error`: the API is overloaded (retried like a 5xx)."""


class BadRequestError(LLMError):
    """Another 4xx: the server rejected the request; not retried."""


class ConnectionFailedError(LLMError):
    """No response: refused, dropped, timed out, after every retry."""


class ProtocolError(LLMError):
    """The server answered something that is not the Messages API wire format (or more of
    it than the adapter accepts)."""


class StreamInterruptedError(LLMError):
    """The stream broke after part of the reply was delivered (not retried: the deltas
    already went to the caller)."""
