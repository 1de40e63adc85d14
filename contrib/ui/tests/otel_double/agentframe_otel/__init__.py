"""A test double of `agentframe_otel.read_traces` (the tracing plugin, built in parallel):
it answers with the trace dict in `$AGENTFRAME_UI_TRACES`, of exactly the shape the shared
contract gives (`agentframe trace show --json`), filtered as the real one filters."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any


def read_traces(
    config: Path | None = None,
    *,
    session_id: str | None = None,
    run_id: str | None = None,
    limit: int = 50,
) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(Path(os.environ["AGENTFRAME_UI_TRACES"]).read_text())
    traces = [
        t
        for t in found["traces"]
        if (session_id is None or t["session_id"] == session_id)
        and (run_id is None or t["run_id"] == run_id)
    ]
    return {"traces": traces[:limit]}
