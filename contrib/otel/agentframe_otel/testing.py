"""The spans this process records, for tests: the `span_exporter` pytest fixture.

    from agentframe_otel.testing import span_exporter  # in a conftest.py

It adds an in-memory exporter to the process's SDK tracer provider (installing one when none
is: providers are process-wide and set once) and shuts it down after the test: a test reads
the spans the kernel's API calls produced (`span_exporter.get_finished_spans()`).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

__all__ = ["span_exporter"]


@pytest.fixture
def span_exporter() -> Iterator[InMemorySpanExporter]:
    """The finished spans of this test, in memory."""
    provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):
        provider = TracerProvider()
        trace.set_tracer_provider(provider)
    found = InMemorySpanExporter()
    processor = SimpleSpanProcessor(found)
    provider.add_span_processor(processor)
    yield found
    processor.shutdown()
