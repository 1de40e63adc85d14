"""`kg query`, bounded: rows are produced one at a time and production stops at the row cap; a
timer ends a query past its time or memory budget; a query cannot reach outside the graph.

rdflib evaluates SPARQL in pure Python, so the timer's signal handler runs between bytecodes
wherever evaluation is (a sort, an aggregate, a SERVICE call waiting on its socket) and raises
there. rdflib has bare `except:` clauses that may swallow one such raise, so the handler raises
again on every tick until the exception gets out.
"""

from __future__ import annotations

import resource
import signal
import sys
import time
from dataclasses import dataclass
from itertools import islice
from types import FrameType
from typing import Any

from agentframe_core import AgentframeError

from .tbox import ID, SCHEMA

__all__ = ["QueryError", "QueryLimits", "QueryResult", "run_query"]

_TICK = 0.05  # seconds between budget checks


class QueryError(AgentframeError):
    """A query that was refused, failed, or ran past its budget; the message says which."""


@dataclass(frozen=True)
class QueryLimits:
    timeout: float
    max_memory_mb: int
    allow_service: bool = False
    max_rows: int = 10_000


@dataclass(frozen=True)
class QueryResult:
    rows: list[list[str]]
    #: More rows existed than `max_rows`; the others were never produced.
    truncated: bool


class _OverBudget(BaseException):
    """Raised by the timer. Not an Exception, so that rdflib's `except Exception` clauses
    cannot turn it into a query error of their own."""


def run_query(graph: Any, sparql: str, limits: QueryLimits) -> QueryResult:
    """A SELECT's rows (at most `limits.max_rows`) or an ASK's answer as one row."""
    budget = _Budget(limits.timeout, limits.max_memory_mb)
    try:
        budget.start()
        try:
            return _evaluate(graph, sparql, limits)
        finally:
            budget.stop()
    except _OverBudget as err:
        raise QueryError(str(err)) from None


def _evaluate(graph: Any, sparql: str, limits: QueryLimits) -> QueryResult:
    from rdflib.plugins.sparql import prepareQuery

    try:
        prepared = prepareQuery(sparql, initNs={"kg": ID, "kgs": SCHEMA})
    except Exception as err:  # the user's query: the parser's message
        raise QueryError(f"query failed: {_named(err)}") from None
    kind = prepared.algebra.name
    if kind not in ("SelectQuery", "AskQuery"):
        raise QueryError(f"only SELECT and ASK queries are run, not {kind.removesuffix('Query')}")
    _refuse_outside(prepared.algebra, limits.allow_service)
    try:
        result = graph.query(prepared)
        if kind == "AskQuery":
            return QueryResult([[str(bool(result.askAnswer))]], False)
        rows = [[_text(v) for v in row] for row in islice(result, limits.max_rows + 1)]
    except Exception as err:  # evaluation errors (a type error in a FILTER, memory...)
        raise QueryError(f"query failed: {_named(err)}") from None
    return QueryResult(rows[: limits.max_rows], len(rows) > limits.max_rows)


def _refuse_outside(algebra: Any, allow_service: bool) -> None:
    """FROM would load another graph (a URL or a local file); SERVICE sends the query to
    another server: refused (SERVICE unless `allow_service`)."""
    from rdflib.plugins.sparql.algebra import traverse
    from rdflib.plugins.sparql.parserutils import CompValue

    if algebra.get("datasetClause"):
        raise QueryError("FROM and FROM NAMED are refused: a query runs on this graph only")
    services: list[str] = []

    def visit(node: Any) -> None:
        if isinstance(node, CompValue) and node.name == "ServiceGraphPattern":
            services.append(str(node.get("term")))

    traverse(algebra, visitPost=visit)
    if services and not allow_service:
        raise QueryError(
            f"SERVICE <{services[0][:200]}> refused: it would send the query to another "
            "server (--allow-service to allow it)"
        )


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _named(err: BaseException) -> str:
    """The error's type and message: never an empty message (MemoryError has none)."""
    message = " ".join(str(err).split())[:300]
    return f"{type(err).__name__}: {message}" if message else type(err).__name__


def _peak_mb() -> float:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1 << 20) if sys.platform == "darwin" else peak / 1024  # bytes on macOS


class _Budget:
    """A timer that raises _OverBudget in the code running when the query is past its time
    or has grown the peak memory by more than its share. Main thread only (signals).

    It never raises in this module's own frames, so that `stop` (in a `finally`) cannot be
    cut short and leave the timer running: it raises at a later tick, in rdflib's code."""

    def __init__(self, timeout: float, max_memory_mb: int) -> None:
        self.timeout, self.max_memory_mb = timeout, max_memory_mb
        self.deadline, self.base = 0.0, 0.0
        self.previous: Any = None

    def start(self) -> None:
        self.deadline, self.base = time.monotonic() + self.timeout, _peak_mb()
        self.previous = signal.signal(signal.SIGALRM, self._tick)
        signal.setitimer(signal.ITIMER_REAL, _TICK, _TICK)

    def stop(self) -> None:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, self.previous)

    def _tick(self, _signum: int, frame: FrameType | None) -> None:
        if frame is not None and frame.f_globals.get("__name__") == __name__:
            return
        if time.monotonic() >= self.deadline:
            raise _OverBudget(
                f"the query ran past its time limit of {self.timeout:g} s (--timeout)"
            )
        if _peak_mb() - self.base > self.max_memory_mb:
            raise _OverBudget(
                f"the query used more than its memory limit of {self.max_memory_mb} MB "
                "(--max-memory)"
            )
