"""`GET /v1/stack`: what the server runs on: the agents, the installed plugins (as
`agentframe plugins --json` lists them) and the config in force (secrets masked by the
kernel's redaction). `POST /v1/doctor`: `agentframe doctor --json --quick`'s checks on the
server's config (it takes seconds: a page asks for it on its own; a POST, as it starts the
config's tools: no cross-site `<img>` can make the server run them)."""

from __future__ import annotations

import asyncio
import dataclasses

from starlette.requests import Request
from starlette.responses import JSONResponse

from agentframe_core import PluginHost, redact_data, redact_text

from .service import Service

__all__ = ["run_doctor", "show_stack"]


async def show_stack(service: Service, request: Request) -> JSONResponse:
    service.gate.admit(request)
    config = service.config
    plugins = [
        {
            **dataclasses.asdict(info),
            "errors": [{"stage": e.stage, "error": redact_text(e.error)} for e in info.errors],
        }
        for info in await asyncio.to_thread(lambda: PluginHost().plugins())
    ]
    return JSONResponse(
        {
            "object": "stack",
            "agents": sorted(service.agents),
            "config": None
            if config is None
            else {
                "file": str(config.file) if config.file else None,
                "profile": config.profile,
                "data": redact_data(config.data),
            },
            "plugins": plugins,
        }
    )


async def run_doctor(service: Service, request: Request) -> JSONResponse:
    service.gate.admit(request)
    return JSONResponse(await service.diagnoses.report(service.config, service.cwd))
