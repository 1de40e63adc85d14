"""When to retry a model call, and how long to wait first."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

import httpx

from agentframe_core import Backoff

__all__ = ["RETRY_ERRORS", "backoff_delay", "retry_after", "retryable_status"]

#: Transport failures worth another attempt: nothing (or nothing usable) reached the server,
#: or the server went away before answering. A read timeout is not among them: the model may
#: be busy generating, and a retry would pay for the generation twice.
RETRY_ERRORS: tuple[type[Exception], ...] = (
    httpx.ConnectError,
    httpx.ConnectTimeout,
    httpx.PoolTimeout,
    httpx.RemoteProtocolError,
    httpx.ReadError,
    httpx.WriteError,
)


def retryable_status(status: int) -> bool:
    """429 (rate limited), 529 (overloaded) and the other 5xx."""
    return status == 429 or status >= 500


def backoff_delay(backoff: Backoff, attempt: int) -> float:
    """The kernel's exponential delay before retry `attempt` (1-based), jittered: a random
    delay in [d/2, d], so clients that failed together do not retry together."""
    delay = backoff.delay(attempt)
    return random.uniform(delay / 2, delay)


def retry_after(headers: httpx.Headers) -> float | None:
    """Seconds from a `retry-after` header (delta-seconds or an HTTP date), if any."""
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())
