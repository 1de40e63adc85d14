"""`GET /v1/traces` of `agentframe serve` (its `agentframe_serve.routes` entry point): the
runs' traces from the local trace store, the caller's own sessions only."""

from __future__ import annotations

import asyncio
from typing import Any

from agentframe_serve import ApiCall, ApiError, ApiRoute, ServeSettings
from starlette.responses import JSONResponse

from .store import read_traces

__all__ = ["list_traces", "routes"]

MAX_TRACES = 200


def routes(settings: ServeSettings) -> list[ApiRoute]:
    return [ApiRoute("/v1/traces", list_traces)]


async def list_traces(call: ApiCall) -> JSONResponse:
    """`session_id` (a session of the caller's), `run_id`, `limit` (at most 200): newest
    trace first, each as `agentframe trace show --json` prints it."""
    params = call.request.query_params
    session = params.get("session_id")
    store_id = None if session is None else call.stored_session(session)
    run_id = params.get("run_id")
    if run_id is not None and not (0 < len(run_id) <= 128):
        raise ApiError(400, "run_id: 1 to 128 characters", param="run_id")
    raw_limit = params.get("limit", "50")
    if not raw_limit.isdigit() or not 0 < int(raw_limit) <= MAX_TRACES:
        raise ApiError(400, f"limit: a whole number from 1 to {MAX_TRACES}", param="limit")
    config = call.config.file if call.config is not None else None
    found: dict[str, Any] = await asyncio.to_thread(
        read_traces, config, session_id=store_id, run_id=run_id, limit=int(raw_limit)
    )
    traces = []
    for trace in found.get("traces", []):
        client_id = call.callers_session(str(trace.get("session_id")))
        if client_id is not None:  # another key's run is not the caller's to see
            traces.append({**trace, "session_id": client_id})
    return JSONResponse({"object": "list", "enabled": True, "traces": traces})
