"""Errors as OpenAI's error object: `{"error": {"message", "type", "param", "code"}}`, the
shape every OpenAI client reads (and raises as `openai.BadRequestError`, ...)."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from agentframe_core import redact_text

__all__ = ["ApiError", "field_path", "from_validation"]

_TYPES = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error"}
_TYPES |= {404: "invalid_request_error", 413: "invalid_request_error", 429: "rate_limit_error"}


class ApiError(Exception):
    """A request refused or failed, with what the client can do about it."""

    def __init__(
        self, status: int, message: str, *, param: str | None = None, code: str | None = None
    ) -> None:
        super().__init__(message)
        self.status, self.message, self.param, self.code = status, message, param, code

    def body(self) -> dict[str, Any]:
        return {
            "error": {
                "message": redact_text(self.message),
                "type": _TYPES.get(self.status, "server_error"),
                "param": self.param,
                "code": self.code,
            }
        }


def field_path(loc: tuple[int | str, ...]) -> str:
    """pydantic's location as a client writes it: `messages[2].content`."""
    path = ""
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        else:
            path += f".{part}" if path else part
    return path


def from_validation(err: ValidationError) -> ApiError:
    """The first problem of a request body, naming its field."""
    first = err.errors()[0]
    loc = tuple(p for p in first["loc"] if not (isinstance(p, str) and p.startswith("function-")))
    param = field_path(loc)
    return ApiError(400, f"{param or 'body'}: {first['msg']}", param=param or None)
