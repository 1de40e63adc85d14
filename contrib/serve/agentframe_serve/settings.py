"""The `serve:` block of agentframe.yaml: keys, caps and CORS for `agentframe serve`."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, PositiveFloat, PositiveInt, field_validator

from agentframe_core import Config, validate_block

__all__ = ["HashedKey", "ServeSettings", "serve_settings"]


class HashedKey(BaseModel):
    """An API key as the config keeps it: its SHA-256, never the key itself."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=r"^[A-Za-z0-9_-]{1,40}$", description="Whose key; owns sessions.")
    sha256: str = Field(pattern=r"^[0-9a-fA-F]{64}$", description="hex SHA-256 of the key.")


class ServeSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    api_keys: list[HashedKey] = Field(default_factory=list)
    api_keys_env: str = Field(
        default="AGENTFRAME_SERVE_API_KEYS",
        description="Environment variable with comma-separated keys, each `name=key` or `key`.",
    )
    max_body_bytes: PositiveInt = Field(default=4 * 1024 * 1024, description="Request body cap.")
    max_messages: PositiveInt = Field(default=1_000, description="Messages per request.")
    max_concurrent_per_key: PositiveInt = Field(default=4, description="Runs at once per key.")
    max_connections: PositiveInt = Field(
        default=200,
        description="Connections open at once; one more is answered 503 and closed.",
    )
    header_timeout_seconds: PositiveFloat = Field(
        default=10.0,
        description="How long a client may take to send a request's headers (from its first "
        "byte; a new connection: from opening); a slower one is answered 408 and closed.",
    )
    body_timeout_seconds: PositiveFloat = Field(
        default=60.0,
        description="How long a client may take to send a request's body; then 408.",
    )
    keep_alive_seconds: PositiveInt = Field(
        default=5, description="How long an idle connection is kept open between requests."
    )
    max_header_bytes: int = Field(
        default=16 * 1024,
        ge=1024,
        le=1024 * 1024,
        description="Cap on a request's line and headers together; a larger one is answered 400.",
    )
    cors_origins: list[str] = Field(
        default_factory=list, description="Browser origins allowed to call (none: CORS off)."
    )
    drain_seconds: PositiveFloat = Field(
        default=10.0, description="On SIGTERM: how long running requests may finish."
    )
    public_url: str | None = Field(
        default=None,
        description="Where clients reach the server (behind a proxy), for A2A agent cards; "
        "default: http://HOST:PORT.",
    )
    #: Removed: it bounded an in-memory table; conversations, Responses and A2A tasks are
    #: records in the store since. A config that still sets it is told what to do instead.
    remembered_conversations: None = Field(default=None, exclude=True)
    kg_folder: str | None = Field(
        default=None,
        description="An `agentframe kg build` output folder that `GET /v1/kg` shows "
        "(relative to the working folder); never a path from a request.",
    )

    @field_validator("remembered_conversations", mode="before")
    @classmethod
    def _removed(cls, value: object) -> None:
        raise ValueError(
            "no longer a setting (remove it): recognised conversations are records in the "
            "store, kept as long as the store keeps them; bound them with `agentframe "
            "sessions prune --older-than AGE`"
        )


def serve_settings(config: Config) -> ServeSettings:
    """The validated `serve:` block (defaults when absent), or a ConfigError naming the file,
    line and field."""
    return validate_block(config.data, "serve", ServeSettings, config.file, config.profile)
