"""`kg query` is bounded (issue 23, item 10): rows stop at the cap as they are produced, a query
past its time or memory budget ends with a named error, and a query cannot reach outside the
graph (SERVICE only with --allow-service, never FROM)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentframe_core.testing import run_cli

CROSS = "SELECT * WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }"  # 62^4 rows


@pytest.fixture
def graph_dir(tmp_path: Path) -> Path:
    """A knowledge_graph.ttl of 62 triples, the size of the adversarial pass's graph."""
    out = tmp_path / "out"
    out.mkdir()
    lines = ["@prefix kg: <https://agentframe.dev/kg/id/> ."]
    lines += [f'kg:e{i} kg:p "value {i}" .' for i in range(62)]
    (out / "knowledge_graph.ttl").write_text("\n".join(lines) + "\n")
    return out


def _query(tmp_path: Path, out: Path, *args: str) -> tuple[float, int, str, str]:
    started = time.monotonic()
    done = run_cli(tmp_path, "kg", "query", str(out), *args, timeout=60)
    return time.monotonic() - started, done.returncode, done.stdout, done.stderr


def _startup(tmp_path: Path, out: Path) -> float:
    """Seconds of a query that costs nothing: the process and the graph, on this machine now."""
    seconds, code, stdout, _ = _query(tmp_path, out, "ASK { }")
    assert (code, stdout.strip()) == (0, "True")
    return seconds


def test_rows_stop_at_the_cap_as_they_are_produced(tmp_path: Path, graph_dir: Path) -> None:
    # all 14.8 million rows made first took 42 s and 1.48 GB; the first 10,000 need little
    _, code, stdout, stderr = _query(
        tmp_path, graph_dir, CROSS, "--max-memory", "200", "--timeout", "600"
    )
    assert code == 0, stderr
    assert len(stdout.splitlines()) == 10_000
    assert "stopped at 10,000 rows" in stderr


def test_a_query_past_its_time_limit_ends_with_a_named_error(
    tmp_path: Path, graph_dir: Path
) -> None:
    count = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }"
    seconds, code, _, stderr = _query(tmp_path, graph_dir, count, "--timeout", "1")
    assert code == 1 and "Traceback" not in stderr
    assert "the query ran past its time limit of 1 s (--timeout)" in stderr
    assert seconds < _startup(tmp_path, graph_dir) + 10  # the count alone runs for minutes


def test_a_query_past_its_memory_limit_ends_with_a_named_error(
    tmp_path: Path, graph_dir: Path
) -> None:
    ordered = CROSS + " ORDER BY ?c"  # sorting keeps every row
    _, code, _, stderr = _query(
        tmp_path, graph_dir, ordered, "--max-memory", "64", "--timeout", "600"
    )
    assert code == 1 and "Traceback" not in stderr
    assert "the query used more than its memory limit of 64 MB (--max-memory)" in stderr


def test_errors_are_named_never_empty(tmp_path: Path, graph_dir: Path) -> None:
    for sparql, expected in (
        ("SELECT ?x WHERE {", "query failed: ParseException: "),
        ("CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }", "only SELECT and ASK queries are run"),
        ("SELECT * FROM <file:///etc/hostname> WHERE { ?s ?p ?o }", "FROM and FROM NAMED are"),
    ):
        _, code, _, stderr = _query(tmp_path, graph_dir, sparql)
        assert code == 1 and expected in stderr, (sparql, stderr)


class _SilentServer:
    """A local server that accepts connections and never answers, counting them."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.accepted: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted.append(conn)


@pytest.fixture
def silent() -> Iterator[_SilentServer]:
    server = _SilentServer()
    yield server
    server.sock.close()
    for conn in server.accepted:
        conn.close()


def test_service_is_refused_unless_allowed_then_bounded_by_the_timeout(
    tmp_path: Path, graph_dir: Path, silent: _SilentServer
) -> None:
    sparql = f"SELECT * WHERE {{ SERVICE <http://127.0.0.1:{silent.port}/sparql> {{ ?s ?p ?o }} }}"
    _, code, _, stderr = _query(tmp_path, graph_dir, sparql)
    assert code == 1 and "refused: it would send the query to another server" in stderr
    assert "--allow-service" in stderr and silent.accepted == []

    seconds, code, _, stderr = _query(
        tmp_path, graph_dir, sparql, "--allow-service", "--timeout", "1"
    )
    assert len(silent.accepted) == 1  # allowed: it did call, and waited for no answer
    assert code == 1 and "ran past its time limit of 1 s" in stderr
    assert seconds < _startup(tmp_path, graph_dir) + 10  # it waited without end before
