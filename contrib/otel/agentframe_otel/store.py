"""The local trace store: a SpanExporter into one SQLite file, and `read_traces`.

Several processes write the same file (a run, the `mcp serve` child it calls, a sub-agent),
so it is in WAL mode and every write is one short transaction. It is bounded like sessions
are (`sessions_to_prune`: older than `keep_days`, beyond the newest `keep_traces`), pruned
when a process opens it, and each attribute value is capped, so captured content cannot
grow it without bound.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult
from opentelemetry.trace import StatusCode

from agentframe_core import (
    create_private,
    find_config_file,
    read_config,
    sessions_to_prune,
    use_wal,
)

from .settings import TelemetrySettings, parse_settings

__all__ = ["TraceStore", "TraceStoreExporter", "read_traces"]

#: Longest attribute value kept (characters); longer ones end in "…[cut]".
MAX_VALUE_CHARS = 16_000
#: Operations agentframe names itself (the GenAI conventions define the others).
_SCHEMA = """
CREATE TABLE IF NOT EXISTS spans (
    span_id TEXT NOT NULL,
    trace_id TEXT NOT NULL,
    parent_id TEXT,
    name TEXT NOT NULL,
    start_ns INTEGER NOT NULL,
    end_ns INTEGER NOT NULL,
    status TEXT NOT NULL,
    error TEXT,
    attributes TEXT NOT NULL,
    run_id TEXT,
    session_id TEXT,
    PRIMARY KEY (trace_id, span_id)
);
CREATE INDEX IF NOT EXISTS spans_trace_end ON spans (trace_id, end_ns);
CREATE INDEX IF NOT EXISTS spans_run ON spans (run_id);
CREATE INDEX IF NOT EXISTS spans_session ON spans (session_id);
"""


class TraceStore:
    """One SQLite file of finished spans."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        create_private(path)  # captured content is prompts and answers: 0600, as its WAL files
        self._db = sqlite3.connect(path, timeout=10, check_same_thread=False)
        use_wal(self._db, 10.0)
        self._db.executescript(_SCHEMA)
        self._lock = threading.Lock()

    def close(self) -> None:
        self._db.close()

    def add(self, spans: Sequence[ReadableSpan]) -> None:
        rows = [_row(span) for span in spans if span.context is not None]
        with self._lock, self._db:
            self._db.executemany(
                "INSERT OR REPLACE INTO spans VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows
            )

    def prune(self, keep_days: int, keep_traces: int) -> int:
        """Delete the traces the retention rule names; how many."""
        with self._lock:
            newest_first = self._db.execute(
                "SELECT trace_id, MAX(end_ns) AS last FROM spans GROUP BY trace_id "
                "ORDER BY last DESC"
            ).fetchall()
            doomed = sessions_to_prune(
                newest_first, older_than=timedelta(days=keep_days), keep_last=keep_traces
            )
            with self._db:
                for start in range(0, len(doomed), 500):
                    chunk = doomed[start : start + 500]
                    marks = ",".join("?" * len(chunk))
                    self._db.execute(f"DELETE FROM spans WHERE trace_id IN ({marks})", chunk)
        return len(doomed)

    def traces(
        self, *, session_id: str | None = None, run_id: str | None = None, limit: int = 50
    ) -> list[dict[str, Any]]:
        """The traces of runs (newest first), or those with a span of this session or run, in
        the shape of `read_traces`."""
        # a trace without a run (an MCP server's initialize, say) is not listed
        where, args = "WHERE run_id IS NOT NULL", []
        if run_id is not None:
            where, args = "WHERE run_id = ?", [run_id]
        elif session_id is not None:
            where, args = "WHERE session_id = ?", [session_id]
        with self._lock:
            ids = [
                row[0]
                for row in self._db.execute(
                    f"SELECT trace_id, MIN(start_ns) AS first FROM spans {where} "
                    "GROUP BY trace_id ORDER BY first DESC LIMIT ?",
                    [*args, max(0, limit)],
                )
            ]
            found = []
            for trace_id in ids:
                rows = self._db.execute(
                    "SELECT span_id, parent_id, name, start_ns, end_ns, status, error, "
                    "attributes FROM spans WHERE trace_id = ? ORDER BY start_ns, span_id",
                    [trace_id],
                ).fetchall()
                found.append(_trace(trace_id, rows))
        return found


def _cap(value: Any) -> Any:
    if isinstance(value, str) and len(value) > MAX_VALUE_CHARS:
        return value[:MAX_VALUE_CHARS] + "…[cut]"
    if isinstance(value, tuple | list):
        return [_cap(v) for v in value]
    return value


def _row(span: ReadableSpan) -> tuple[Any, ...]:
    context = span.context
    assert context is not None
    attributes = {key: _cap(value) for key, value in (span.attributes or {}).items()}
    status = span.status
    failed = status.status_code is StatusCode.ERROR
    return (
        f"{context.span_id:016x}",
        f"{context.trace_id:032x}",
        f"{span.parent.span_id:016x}" if span.parent is not None else None,
        span.name,
        span.start_time or 0,
        span.end_time or span.start_time or 0,
        "error" if failed else "ok",
        (status.description or "error") if failed else None,
        json.dumps(attributes, ensure_ascii=False, default=str),
        attributes.get("agentframe.run.id"),
        attributes.get("agentframe.session.id"),
    )


def _operation(name: str, attributes: dict[str, Any]) -> str:
    """`mcp` for the MCP SDK's spans (client and server), else the GenAI conventions'
    operation, else agentframe's own, else the name's first word."""
    if "mcp.method.name" in attributes:
        return "mcp"
    found = attributes.get("gen_ai.operation.name") or attributes.get("agentframe.operation.name")
    return found if isinstance(found, str) else name.split(" ")[0]


def _trace(trace_id: str, rows: list[tuple[Any, ...]]) -> dict[str, Any]:
    known = {row[0] for row in rows}
    start = min(row[3] for row in rows)
    end = max(row[4] for row in rows)
    spans = []
    for span_id, parent_id, name, start_ns, end_ns, status, error, attributes in rows:
        attrs = json.loads(attributes)
        spans.append(
            {
                "span_id": span_id,
                # a parent this store never saw (a remote caller's span) is no parent here
                "parent_id": parent_id if parent_id in known else None,
                "name": name,
                "operation": _operation(name, attrs),
                "start_ms": (start_ns - start) / 1e6,
                "duration_ms": (end_ns - start_ns) / 1e6,
                "status": status,
                "error": error,
                "attributes": attrs,
            }
        )
    roots = [s for s in spans if s["parent_id"] is None]
    # the trace's run: its first (outermost) `invoke_agent`, under a caller's span or not
    run = next((s for s in spans if s["operation"] == "invoke_agent"), None)
    run_attrs = run["attributes"] if run else {}
    return {
        "trace_id": trace_id,
        "run_id": str(run_attrs.get("agentframe.run.id", "")),
        "session_id": str(run_attrs.get("agentframe.session.id", "")),
        "agent": run_attrs.get("gen_ai.agent.name"),
        "start": start / 1e9,
        "duration_ms": (end - start) / 1e6,
        "status": "error" if any(s["status"] == "error" for s in roots) else "ok",
        "spans": spans,
    }


class TraceStoreExporter(SpanExporter):
    """Finished spans into the store (behind a BatchSpanProcessor, off the run's path)."""

    def __init__(self, settings: TelemetrySettings) -> None:
        self.store = TraceStore(settings.store_file())
        self.store.prune(settings.keep_days, settings.keep_traces)

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        try:
            self.store.add(spans)
        except sqlite3.Error:
            return SpanExportResult.FAILURE
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        self.store.close()


def read_traces(
    config: Path | None = None,
    *,
    session_id: str | None = None,
    run_id: str | None = None,
    limit: int = 50,
) -> dict[str, Any]:
    """The stored traces, newest first, of one session or run (all when neither is given):
    `{"traces": [...]}`, the JSON `agentframe trace show --json` prints. `config`: the
    agentframe.yaml whose `telemetry:` block says where the store is (default: the one in
    force)."""
    file = find_config_file(config)
    data = read_config(file).data if file is not None else {}
    path = parse_settings(data, file).store_file()
    if not path.is_file():
        return {"traces": []}
    store = TraceStore(path)
    try:
        return {"traces": store.traces(session_id=session_id, run_id=run_id, limit=limit)}
    finally:
        store.close()
