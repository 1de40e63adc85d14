"""The local trace store: off unless asked for, `trace show --json` is `read_traces`, content
captured by the config key is redacted, and the store is bounded in age, count and size."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from agentframe_otel import read_traces
from agentframe_otel.settings import TelemetrySettings
from agentframe_otel.store import MAX_VALUE_CHARS, TraceStore, TraceStoreExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

from agentframe_core.testing import run_cli

CONFIG = """\
adapter:
  use: scripted
  cycle: true
  replies:
    - tool_calls: [{name: add, arguments: {a: 2, b: 3}}]
      usage: {prompt_tokens: 50, completion_tokens: 5, cached_tokens: 40}
    - "The sum is 5."
store: {use: memory}
tools:
  - use: functions
    import: ["agentframe_core.examples:add"]
"""


def test_traces_are_kept_only_when_asked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"):
        monkeypatch.delenv(name, raising=False)
    config = tmp_path / "agentframe.yaml"
    config.write_text(CONFIG)
    assert run_cli(tmp_path, "run", "add").returncode == 0
    store = tmp_path / "data" / "agentframe" / "traces.sqlite"
    assert not store.exists()  # no telemetry: block, no OTEL endpoint: nothing recorded

    config.write_text(CONFIG + "telemetry: {capture_content: true}\n")
    done = run_cli(tmp_path, "run", "--json", "add these, Bearer abcdef0123456789")
    assert done.returncode == 0, done.stderr
    run_id = json.loads(done.stdout)["run_id"]
    shown = run_cli(tmp_path, "trace", "show", run_id, "--json")
    assert shown.returncode == 0, shown.stderr
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert json.loads(shown.stdout) == read_traces(config, run_id=run_id)

    (trace,) = json.loads(shown.stdout)["traces"]
    assert set(trace) == {
        "trace_id", "run_id", "session_id", "agent", "start", "duration_ms", "status", "spans"
    }  # fmt: skip
    assert len(trace["trace_id"]) == 32 and trace["run_id"] == run_id
    assert trace["status"] == "ok" and trace["agent"] is None
    assert abs(trace["start"] - time.time()) < 600
    span = trace["spans"][0]
    assert set(span) == {
        "span_id", "parent_id", "name", "operation", "start_ms", "duration_ms", "status",
        "error", "attributes",
    }  # fmt: skip
    assert [s["operation"] for s in trace["spans"]] == [
        "invoke_agent", "prompt", "prompt", "chat", "execute_tool", "prompt", "chat"
    ]  # fmt: skip
    chat = next(s for s in trace["spans"] if s["operation"] == "chat")
    sent = chat["attributes"]["gen_ai.input.messages"]
    assert "add these, Bearer ***" in sent and "abcdef0123456789" not in shown.stdout

    tree = run_cli(tmp_path, "trace", "show")
    assert tree.returncode == 0, tree.stderr
    assert "execute_tool add" in tree.stdout and "50 in / 5 out  80% cached" in tree.stdout


#: Made-up tokens of real shapes: OpenAI, GitHub, AWS, Slack, a JWT.
TOKENS = [
    "sk-proj-" + "Ab3_" * 12,
    "ghp_" + "a1B2" * 9,
    "AKIA" + "IOSFODNN7EXAMPLE",
    "xoxb-1234567890-0987654321-" + "abc" * 8,
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
]


def test_bare_tokens_never_reach_the_store_and_it_is_the_owners_only(tmp_path: Path) -> None:
    replies = json.dumps([f"Your keys: {' '.join(TOKENS)}"])
    (tmp_path / "agentframe.yaml").write_text(
        f"adapter: {{use: scripted, replies: {replies}}}\nstore: {{use: memory}}\n"
        "telemetry: {capture_content: true}\n"
    )
    done = run_cli(tmp_path, "run", "--json", f"remember these: {' '.join(TOKENS)}")
    assert done.returncode == 0, done.stderr
    run_id = json.loads(done.stdout)["run_id"]
    store = tmp_path / "data" / "agentframe" / "traces.sqlite"
    assert store.stat().st_mode & 0o777 == 0o600  # prompts and answers: the owner's only
    shown = run_cli(tmp_path, "trace", "show", run_id, "--json")
    tree = run_cli(tmp_path, "trace", "show", run_id)
    assert shown.returncode == 0 and tree.returncode == 0, shown.stderr + tree.stderr
    chat = next(s for s in json.loads(shown.stdout)["traces"][0]["spans"] if "chat" in s["name"])
    assert "remember these: ***" in chat["attributes"]["gen_ai.input.messages"]
    assert "Your keys: ***" in chat["attributes"]["gen_ai.output.messages"]
    stored = b"".join(f.read_bytes() for f in store.parent.glob("traces.sqlite*"))
    for token in TOKENS:
        assert token not in shown.stdout + tree.stdout, token
        assert token.encode() not in stored, token


def _spans(store_path: Path, traces: dict[str, float]) -> None:
    """One finished run span per run id, ended `age` days ago."""
    provider = TracerProvider()
    settings = TelemetrySettings(store_path=store_path, keep_days=365, keep_traces=10_000)
    processor = SimpleSpanProcessor(TraceStoreExporter(settings))
    provider.add_span_processor(processor)
    tracer = provider.get_tracer("test")
    for name, age in traces.items():
        ended = time.time_ns() - int(age * 86400e9)
        span = tracer.start_span("invoke_agent", start_time=ended - 1000)
        span.set_attribute("gen_ai.operation.name", "invoke_agent")
        span.set_attribute("agentframe.run.id", name)
        span.set_attribute("big", "x" * (MAX_VALUE_CHARS + 100))
        span.end(end_time=ended)
    processor.shutdown()


def test_the_store_is_bounded_in_age_count_and_size(tmp_path: Path) -> None:
    path = tmp_path / "traces.sqlite"
    _spans(path, {"old": 30, "recent-1": 0.3, "recent-2": 0.2, "recent-3": 0.1})
    store = TraceStore(path)
    try:
        listed = store.traces(limit=10)
        assert [t["run_id"] for t in listed] == ["recent-3", "recent-2", "recent-1", "old"]
        big = listed[0]["spans"][0]["attributes"]["big"]
        assert len(big) == MAX_VALUE_CHARS + len("…[cut]") and big.endswith("…[cut]")
        assert store.prune(keep_days=14, keep_traces=2) == 2  # too old, and beyond the newest 2
        assert [t["run_id"] for t in store.traces(limit=10)] == ["recent-3", "recent-2"]
    finally:
        store.close()
