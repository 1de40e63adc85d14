"""Spans of a durable run: its DBOS workflow, and each checkpointed step, around the
kernel's own spans (`invoke_agent`, `chat`, `execute_tool`).

A trace of a durable run is `workflow agentframe_run` (with `dbos.workflow.id`, so a trace
leads to `agentframe status ID` and back) > `invoke_agent` > `chat` > `step model_call`, and
`execute_tool` > `step tool:NAME`. Without an OpenTelemetry SDK (agentframe-otel, asked for
by the config's `telemetry:` block) they are the API's no-ops.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from dbos import DBOS
from opentelemetry import trace

from .names import WORKFLOW_NAME

__all__ = ["step", "workflow"]

T = TypeVar("T")

_tracer = trace.get_tracer("agentframe.dbos")


@contextmanager
def workflow(session_id: str) -> Iterator[None]:
    """The span of one workflow execution (a recovered run is a new one, same id)."""
    with _tracer.start_as_current_span(
        f"workflow {WORKFLOW_NAME}",
        attributes={
            "agentframe.operation.name": "dbos",
            "dbos.workflow.name": WORKFLOW_NAME,
            "dbos.workflow.id": DBOS.workflow_id or "",
            "agentframe.session.id": session_id,
        },
    ):
        yield


async def step(name: str, function: Callable[..., Any], *args: Any) -> Any:
    """`DBOS.run_step_async({"name": name}, function, *args)` in a span of its own."""
    with _tracer.start_as_current_span(
        f"step {name}",
        attributes={
            "agentframe.operation.name": "dbos",
            "dbos.step.name": name,
            "dbos.workflow.id": DBOS.workflow_id or "",
        },
    ):
        return await DBOS.run_step_async({"name": name}, function, *args)
