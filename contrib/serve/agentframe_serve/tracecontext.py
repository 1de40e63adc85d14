"""A request's server span, continuing the caller's W3C trace (`traceparent` header).

A client that traces its own work sends `traceparent` (and `tracestate`); the run this
request starts is then a part of the client's trace. Without an OpenTelemetry SDK the span
is the API's no-op.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from opentelemetry import propagate, trace
from opentelemetry.trace import SpanKind
from starlette.types import Scope

__all__ = ["continued"]

_tracer = trace.get_tracer("agentframe.serve")
_HEADERS = {b"traceparent", b"tracestate", b"baggage"}
_MAX_VALUE = 512  # a longer header is not trace context: ignored


@contextmanager
def continued(scope: Scope) -> Iterator[None]:
    """Answer one request in a server span, child of the caller's span when it names one."""
    carrier = {
        name.decode("latin-1"): value.decode("latin-1")
        for name, value in scope.get("headers", [])
        if name in _HEADERS and len(value) <= _MAX_VALUE
    }
    method, path = scope.get("method", ""), scope.get("path", "")
    with _tracer.start_as_current_span(
        f"{method} {path}",
        context=propagate.extract(carrier) if carrier else None,
        kind=SpanKind.SERVER,
        attributes={"http.request.method": method, "url.path": path},
    ):
        yield
