"""The `telemetry:` block, as this plugin reads it (the kernel reads `enabled` and
`capture_content` itself), and when tracing is asked for at all."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PositiveInt

from agentframe_core import data_dir, validate_block

__all__ = ["TelemetrySettings", "asked_for", "parse_settings"]

#: Standard variables that ask for export (the SDK reads their values itself).
EXPORT_ENV = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")


class TelemetrySettings(BaseModel):
    """`telemetry:` in agentframe.yaml. Standard `OTEL_*` variables win over it."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = Field(default=True, description="false: no span, no metric, no store.")
    capture_content: bool = Field(
        default=False, description="Record prompts, replies and tool arguments (redacted)."
    )
    endpoint: str | None = Field(
        default=None,
        description="OTLP/HTTP base URL (e.g. http://localhost:4318); "
        "$OTEL_EXPORTER_OTLP_ENDPOINT wins.",
    )
    service_name: str = Field(default="agentframe", description="$OTEL_SERVICE_NAME wins.")
    store: bool = Field(default=True, description="Keep traces for `agentframe trace show`.")
    store_path: Path | None = Field(
        default=None, description="The trace store (default: <data folder>/traces.sqlite)."
    )
    keep_days: PositiveInt = Field(default=14, description="Traces older than this are pruned.")
    keep_traces: PositiveInt = Field(default=2000, description="At most this many are kept.")

    def store_file(self) -> Path:
        return (self.store_path or data_dir() / "traces.sqlite").expanduser()

    def otlp_endpoint(self) -> str | None:
        """The traces endpoint to export to, or None when none is configured."""
        if os.environ.get("OTEL_TRACES_EXPORTER", "").strip().lower() == "none":
            return None
        explicit = os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        if explicit:
            return explicit
        base = os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT") or self.endpoint
        return f"{base.rstrip('/')}/v1/traces" if base else None

    def metrics_endpoint(self) -> str | None:
        if os.environ.get("OTEL_METRICS_EXPORTER", "").strip().lower() == "none":
            return None
        explicit = os.environ.get("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT")
        if explicit:
            return explicit
        base = os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT") or self.endpoint
        return f"{base.rstrip('/')}/v1/metrics" if base else None


def parse_settings(
    data: Mapping[str, Any], file: Path | None = None, profile: str | None = None
) -> TelemetrySettings:
    """The validated `telemetry:` block of a config's `data`, or a ConfigError naming the
    file, line and field."""
    return validate_block(data, "telemetry", TelemetrySettings, file, profile)


def asked_for(block: dict[str, Any] | None) -> bool:
    """Tracing is off unless asked for: a `telemetry:` block (not `enabled: false`), or a
    standard variable naming an exporter endpoint."""
    if os.environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    if block is not None:
        return block.get("enabled") is not False
    return any(os.environ.get(name) for name in EXPORT_ENV)
