"""The `adapter: {use: openai, ...}` block."""

from __future__ import annotations

import os
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    NonNegativeInt,
    PositiveFloat,
    PositiveInt,
    SecretStr,
    ValidationInfo,
    field_validator,
)

from agentframe_core import Backoff

__all__ = ["DEFAULT_KEY_ENV", "OpenAIOptions"]

DEFAULT_KEY_ENV = "OPENAI_API_KEY"


class OpenAIOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    base_url: str = Field(
        default="https://api.openai.com/v1",
        description="The API root; `/chat/completions` and `/models` are under it.",
    )
    model: str | None = Field(default=None, description="Model id sent with every request.")
    api_key: SecretStr | None = Field(
        default=None, description="The key itself (prefer api_key_env); never logged."
    )
    api_key_env: str | None = Field(
        default=DEFAULT_KEY_ENV, description="Environment variable holding the key."
    )
    timeout: PositiveFloat = Field(default=120.0, description="Seconds to wait for data.")
    connect_timeout: PositiveFloat = Field(default=10.0, description="Seconds to connect.")
    max_retries: NonNegativeInt = Field(
        default=3, description="Retries on 429, 5xx and connection errors."
    )
    backoff_base: PositiveFloat = Field(default=0.5, description="First retry delay (s).")
    backoff_max: PositiveFloat = Field(
        default=30.0, description="Longest retry delay (s); a longer Retry-After fails at once."
    )
    headers: dict[str, str] = Field(default_factory=dict, description="Extra HTTP headers.")
    temperature: float | None = Field(default=None, ge=0, le=2)
    top_p: float | None = Field(default=None, gt=0, le=1)
    max_tokens: PositiveInt | None = Field(default=None, description="Default reply limit.")
    seed: int | None = None
    stop: list[str] | None = None
    extra_body: dict[str, Any] = Field(
        default_factory=dict,
        description="Merged into every request body (server-specific parameters).",
    )
    native_tools: bool = Field(default=True, description="Send `tools`, read `tool_calls`.")
    json_schema: bool = Field(
        default=True, description="The server honours `response_format: json_schema`."
    )
    stream_usage: bool = Field(
        default=True, description="Ask for usage at the end of a stream (`stream_options`)."
    )
    context_window: PositiveInt | None = None

    @field_validator("base_url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError(f"must be an http:// or https:// URL, not {value!r}")
        return value.rstrip("/")

    @field_validator("api_key_env")
    @classmethod
    def _key_env_is_set(cls, value: str | None, info: ValidationInfo) -> str | None:
        """A variable named on purpose must hold the key, or every call would fail with 401
        at run time; the default one may be unset (local servers need no key). Runs only
        when `api_key_env` is given: pydantic does not validate defaults."""
        if value and info.data.get("api_key") is None and not os.environ.get(value):
            raise ValueError(
                f"{value} is not set in the environment: export it, give the key in `api_key`, "
                "or set `api_key_env: null` to send no key"
            )
        return value

    def backoff(self) -> Backoff:
        """The retry delays, as the kernel computes them (options in seconds, Backoff in ms)."""
        return Backoff(
            max_retries=self.max_retries,
            base_delay_ms=round(self.backoff_base * 1000),
            max_delay_ms=round(self.backoff_max * 1000),
        )

    def resolve_key(self) -> tuple[str | None, str]:
        """The API key, and where it came from (for error messages, never the key itself)."""
        if self.api_key is not None:
            return self.api_key.get_secret_value(), "the `api_key` option"
        if self.api_key_env:
            key = os.environ.get(self.api_key_env)
            if key:
                return key, f"${self.api_key_env}"
            return None, f"${self.api_key_env} (not set, so no key was sent)"
        return None, "nowhere (no api_key and no api_key_env)"
