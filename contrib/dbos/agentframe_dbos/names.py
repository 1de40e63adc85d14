"""Names the workers and the client commands agree on, without importing either side."""

from __future__ import annotations

__all__ = ["WAITING_EVENT", "WORKFLOW_NAME", "result_topic"]

#: The DBOS workflow a run is.
WORKFLOW_NAME = "agentframe_run"
#: The workflow event naming the parked call a run waits for (`agentframe status` shows it).
WAITING_EVENT = "waiting_for"


def result_topic(call_id: str) -> str:
    """The DBOS message topic that carries the result of the parked call `call_id`."""
    return f"tool-result:{call_id}"
