"""A request with a `traceparent` header: the run it starts is part of the caller's trace."""

from __future__ import annotations

from typing import Any

import httpx
from opentelemetry import trace
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

TRACE_ID = "0af7651916cd43dd8448eb211c80319c"
CALLER_SPAN = "b7ad6b7169203331"


async def test_a_request_continues_the_callers_trace(
    serve: Any, span_exporter: InMemorySpanExporter
) -> None:
    served = await serve(["hello"])
    async with httpx.AsyncClient() as http:
        answer = await http.post(
            f"{served.url}/v1/chat/completions",
            json={"model": "helper", "messages": [{"role": "user", "content": "hi"}]},
            headers={"traceparent": f"00-{TRACE_ID}-{CALLER_SPAN}-01"},
        )
        assert answer.status_code == 200, answer.text
        untraced = await http.get(f"{served.url}/healthz")
        assert untraced.status_code == 200
    spans = {s.context.span_id: s for s in span_exporter.get_finished_spans() if s.context}
    (request,) = [s for s in spans.values() if s.name == "POST /v1/chat/completions"]
    assert request.kind is trace.SpanKind.SERVER
    assert request.parent is not None and request.parent.is_remote
    assert f"{request.parent.span_id:016x}" == CALLER_SPAN
    (run,) = [s for s in spans.values() if s.name == "invoke_agent helper"]
    assert f"{run.context.trace_id:032x}" == TRACE_ID
    ancestor = run
    while ancestor.parent is not None and ancestor.parent.span_id in spans:
        ancestor = spans[ancestor.parent.span_id]
    assert ancestor is request  # the run is under the request's span
    (health,) = [s for s in spans.values() if s.name == "GET /healthz"]
    assert f"{health.context.trace_id:032x}" != TRACE_ID  # no header: a trace of its own
