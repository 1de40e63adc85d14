"""`GET /v1/traces`: the runs' traces from the local trace store of the `agentframe-otel`
plugin (its `read_traces`), the caller's own sessions only. Without that plugin the answer
says how to enable tracing."""

from __future__ import annotations

import asyncio
import importlib
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse

from .conversations import Conversations, check_client_id
from .errors import ApiError
from .service import Service

__all__ = ["HINT", "list_traces"]

HINT = (
    "tracing is not installed: pip install agentframe-otel (in this repository: "
    "pip install -e contrib/otel), turn it on in agentframe.yaml as its README says, "
    "and restart the server"
)
MAX_TRACES = 200


async def list_traces(service: Service, request: Request) -> JSONResponse:
    """`session_id` (a session of the caller's), `run_id`, `limit` (at most 200): newest
    trace first, each as `agentframe trace show --json` prints it."""
    owner = service.gate.admit(request)
    params = request.query_params
    session = params.get("session_id")
    store_id = None
    if session is not None:
        store_id = Conversations.store_id(owner, check_client_id(session, "session_id"))
    run_id = params.get("run_id")
    if run_id is not None and not (0 < len(run_id) <= 128):
        raise ApiError(400, "run_id: 1 to 128 characters", param="run_id")
    raw_limit = params.get("limit", "50")
    if not raw_limit.isdigit() or not 0 < int(raw_limit) <= MAX_TRACES:
        raise ApiError(400, f"limit: a whole number from 1 to {MAX_TRACES}", param="limit")
    try:
        otel = importlib.import_module("agentframe_otel")
    except ImportError:
        return JSONResponse({"object": "list", "enabled": False, "hint": HINT, "traces": []})
    config = service.config.file if service.config is not None else None
    found: dict[str, Any] = await asyncio.to_thread(
        otel.read_traces, config, session_id=store_id, run_id=run_id, limit=int(raw_limit)
    )
    traces = []
    for trace in found.get("traces", []):
        client_id = Conversations.client_id(owner, str(trace.get("session_id")))
        if client_id is not None:  # another key's run is not the caller's to see
            traces.append({**trace, "session_id": client_id})
    return JSONResponse({"object": "list", "enabled": True, "traces": traces})
