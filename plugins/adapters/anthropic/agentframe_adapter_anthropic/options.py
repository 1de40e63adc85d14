"""The `adapter: {use: anthropic, ...}` block."""

from __future__ import annotations

import os
from typing import Any, Literal

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

__all__ = ["DEFAULT_KEY_ENV", "AnthropicOptions", "CacheMode"]

DEFAULT_KEY_ENV = "ANTHROPIC_API_KEY"

#: `auto`: breakpoints with the API's default lifetime (5 minutes); `5m` / `1h`: that TTL;
#: `off`: no `cache_control` at all.
CacheMode = Literal["auto", "off", "5m", "1h"]


class AnthropicOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    base_url: str = Field(
        default="https://api.anthropic.com/v1",
        description="The API root; `/messages` and `/models` are under it.",
    )
    model: str | None = Field(default=None, description="Model id sent with every request.")
    api_key: SecretStr | None = Field(
        default=None, description="The key itself (prefer api_key_env); never logged."
    )
    api_key_env: str | None = Field(
        default=DEFAULT_KEY_ENV, description="Environment variable holding the key."
    )
    anthropic_version: str = Field(
        default="2023-06-01", description="The `anthropic-version` header."
    )
    timeout: PositiveFloat = Field(default=600.0, description="Seconds to wait for data.")
    connect_timeout: PositiveFloat = Field(default=10.0, description="Seconds to connect.")
    max_retries: NonNegativeInt = Field(
        default=3, description="Retries on 429, 529, other 5xx and connection errors."
    )
    backoff_base: PositiveFloat = Field(default=0.5, description="First retry delay (s).")
    backoff_max: PositiveFloat = Field(
        default=30.0, description="Longest retry delay (s); a longer retry-after fails at once."
    )
    headers: dict[str, str] = Field(default_factory=dict, description="Extra HTTP headers.")
    max_tokens: PositiveInt = Field(
        default=4096, description="Reply limit when the request names none (the API needs one)."
    )
    temperature: float | None = Field(default=None, ge=0, le=1)
    top_p: float | None = Field(default=None, gt=0, le=1)
    top_k: PositiveInt | None = None
    stop: list[str] | None = Field(default=None, description="Sent as `stop_sequences`.")
    thinking_budget: int | None = Field(
        default=None,
        ge=1024,
        description="Extended thinking with this token budget (below max_tokens); off if unset.",
    )
    cache: CacheMode = Field(
        default="auto", description="Prompt caching: auto, off, or a TTL (5m, 1h)."
    )
    extra_body: dict[str, Any] = Field(
        default_factory=dict,
        description="Merged into every request body (fields this adapter does not model).",
    )
    native_tools: bool = Field(default=True, description="Send `tools`, read `tool_use`.")
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
        at run time; the default one may be unset (a local server needs no key). Runs only
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
