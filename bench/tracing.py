"""What tracing costs per run, side by side in one process.

One run = one user message, 2 model calls (the first asks for a tool) and 1 tool call, on a
scripted stack built from a config file (as `agentframe run` builds it), each on a new
session. Variants:

- bypassed: `telemetry: {enabled: false}`, the kernel skips every span and measurement:
  the loop as it was before tracing;
- off: no `telemetry:` block and no OpenTelemetry SDK: the kernel sees that the API has no
  provider and starts no span (what every user without agentframe-otel, or who asked for
  nothing, runs);
- on: agentframe-otel's providers installed (`telemetry: {endpoint: ...}`): every span through
  batch processors to the local SQLite trace store and to OTLP/HTTP (a local sink that
  answers 200), and the metrics recorded.

OpenTelemetry's providers are process-wide, so the no-op phase runs first, then the SDK is
installed; each phase interleaves its variant with the bypassed one in rounds.

    python bench/tracing.py [--runs 2000]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import statistics
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import yaml

from agentframe_core import Outcome, PluginHost, Session, Stack, build_stack, load_config

REPLIES = [
    {
        "tool_calls": [{"name": "add", "arguments": {"a": 2, "b": 3}}],
        "usage": {"prompt_tokens": 300, "completion_tokens": 12, "cached_tokens": 250},
    },
    {"content": "It is 5.", "usage": {"prompt_tokens": 330, "completion_tokens": 5}},
]


#: A fast real model call (a short reply from a small local model takes longer).
MODEL_SECONDS = 0.02


class Sink(BaseHTTPRequestHandler):
    """An OTLP/HTTP endpoint that accepts everything (the export's cost is on our side)."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def make_stack(
    folder: Path, name: str, telemetry: dict[str, object] | None, delay: float = 0.0
) -> Stack:
    """A stack from a config file; `delay`: seconds each model call takes."""
    replies = [{**reply, "delay": delay} for reply in REPLIES]
    config: dict[str, object] = {
        "adapter": {"use": "scripted", "cycle": True, "replies": replies},
        "store": {"use": "memory"},
        "tools": [{"use": "functions", "import": ["agentframe_core.examples:add"]}],
    }
    if telemetry is not None:
        config["telemetry"] = telemetry
    file = folder / f"{name}.yaml"
    file.write_text(yaml.safe_dump(config))
    host = PluginHost()
    return build_stack(load_config(host, file), host)


async def runs(stack: Stack, count: int) -> float:
    """Median seconds per run, each on a new session."""
    seconds = []
    for _ in range(count):
        session = Session(stack, system="bench")
        started = time.perf_counter()
        result = await session.run("2+3?")
        seconds.append(time.perf_counter() - started)
        if result.outcome is not Outcome.COMPLETED or result.turns != 2:
            raise SystemExit(f"a run went wrong: {result.outcome} after {result.turns} turns")
    return statistics.median(seconds)


async def side_by_side(baseline: Stack, variant: Stack, count: int) -> tuple[float, float]:
    await runs(baseline, min(50, count))
    await runs(variant, min(50, count))
    gc.collect()
    base, other = [], []
    for _ in range(5):
        base.append(await runs(baseline, count // 5))
        other.append(await runs(variant, count // 5))
    return statistics.median(base) * 1e6, statistics.median(other) * 1e6


def bare_span(count: int = 2000) -> float:
    """µs for one span with two attributes through the installed providers: the SDK's floor."""
    from opentelemetry import trace

    tracer = trace.get_tracer("bench")
    started = time.perf_counter()
    for _ in range(count):
        with tracer.start_as_current_span("bench", attributes={"a": 1, "b": "x"}):
            pass
    return (time.perf_counter() - started) / count * 1e6


async def main(count: int) -> None:
    folder = Path(tempfile.mkdtemp(prefix="bench-tracing-"))
    os.environ["XDG_DATA_HOME"] = str(folder / "data")  # the trace store of the "on" phase
    for name in ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"):
        os.environ.pop(name, None)
    sink = ThreadingHTTPServer(("127.0.0.1", 0), Sink)
    threading.Thread(target=sink.serve_forever, daemon=True).start()
    endpoint = f"http://127.0.0.1:{sink.server_address[1]}"

    bypassed = make_stack(folder, "bypassed", {"enabled": False})
    off = make_stack(folder, "off", None)  # no SDK yet: the API's no-op path
    base_off, no_op = await side_by_side(bypassed, off, count)
    on = make_stack(folder, "on", {"endpoint": endpoint})  # installs agentframe-otel's SDK
    base_on, traced = await side_by_side(bypassed, on, count)
    slow = count // 20
    base_slow, traced_slow = await side_by_side(
        make_stack(folder, "bypassed-slow", {"enabled": False}, MODEL_SECONDS),
        make_stack(folder, "on-slow", {"endpoint": endpoint}, MODEL_SECONDS),
        slow,
    )

    print(f"per run (2 model calls + 1 tool call, a new session each), median of {count} runs:")
    print(f"  bypassed (telemetry: {{enabled: false}})    {base_off:8.1f} µs")
    print(f"  off (no SDK installed: no span started)    {no_op:8.1f} µs")
    print(f"  ratio off / bypassed                       {no_op / base_off:8.3f}   (goal <= 1.01)")
    print(f"  bypassed, second phase                     {base_on:8.1f} µs")
    print(f"  on (SDK, batch OTLP/HTTP + trace store)    {traced:8.1f} µs")
    print(f"  ratio on / bypassed                        {traced / base_on:8.3f}   (goal <= 1.05)")
    print(f"  one bare span of the installed SDK         {bare_span():8.1f} µs   (a run has 7)")
    print(f"with each model call taking {MODEL_SECONDS * 1000:.0f} ms, median of {slow} runs:")
    print(f"  bypassed                                   {base_slow / 1000:8.2f} ms")
    print(f"  on                                         {traced_slow / 1000:8.2f} ms")
    ratio = traced_slow / base_slow
    print(f"  ratio on / bypassed                        {ratio:8.3f}   (goal <= 1.05)")
    from opentelemetry import metrics, trace

    trace.get_tracer_provider().shutdown()  # type: ignore[attr-defined]
    metrics.get_meter_provider().shutdown()  # type: ignore[attr-defined]
    sink.shutdown()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=2000)
    asyncio.run(main(parser.parse_args().runs))
