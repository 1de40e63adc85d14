"""Installing the SDK's providers for the kernel's spans and metrics, once per process.

OpenTelemetry's providers are process-wide, so the first stack built decides; a later stack
(a sub-agent's, say) finds them installed. Spans go through batch processors, off the run's
path: to the local trace store and, when an endpoint is configured, to OTLP/HTTP. The
providers flush and shut down at exit (the SDK's own `atexit`).
"""

from __future__ import annotations

import logging
import os
import sqlite3
from typing import Any

from .settings import TelemetrySettings, asked_for

__all__ = ["install", "installed"]

log = logging.getLogger("agentframe.otel")

_installed: list[TelemetrySettings] = []


def installed() -> TelemetrySettings | None:
    """The settings the providers were installed with, or None when they were not."""
    return _installed[0] if _installed else None


def install(block: dict[str, Any] | None, settings: TelemetrySettings) -> None:
    """Install the providers for this `telemetry:` block (validated: `settings`), if tracing
    is asked for and none were installed yet (called as a stack is built; the SDK is imported
    only then, so a stack that asks for nothing does not pay for it)."""
    if _installed or not asked_for(block):
        return
    _installed.append(settings)
    from opentelemetry import metrics, trace
    from opentelemetry.sdk.resources import SERVICE_NAME, Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    name = os.environ.get("OTEL_SERVICE_NAME") or settings.service_name
    resource = Resource.create({SERVICE_NAME: name})
    provider = TracerProvider(resource=resource)
    if settings.store:
        from .store import TraceStoreExporter

        try:
            provider.add_span_processor(BatchSpanProcessor(TraceStoreExporter(settings)))
        except (OSError, sqlite3.Error) as err:  # an unwritable data folder: export still works
            log.warning("the trace store is off: %s", err)
    endpoint = settings.otlp_endpoint()
    if endpoint:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=endpoint)))
    trace.set_tracer_provider(provider)
    metrics_endpoint = settings.metrics_endpoint()
    if metrics_endpoint:
        from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader

        reader = PeriodicExportingMetricReader(OTLPMetricExporter(endpoint=metrics_endpoint))
        metrics.set_meter_provider(MeterProvider(resource=resource, metric_readers=[reader]))
