"""`GET /v1/stack`: what the server runs on: the agents, the installed plugins (as
`agentframe plugins --json` lists them) and the config in force (secrets masked by the
kernel's redaction). `GET /v1/doctor`: `agentframe doctor --json --quick`, run as a bounded
subprocess on the server's config (it takes seconds: a page asks for it on its own)."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import sys
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse

from agentframe_core import Config, PluginHost, redact_data, redact_text

from .service import Service

__all__ = ["run_doctor", "show_stack"]

TIMEOUT_SECONDS = 60.0
MAX_OUTPUT_BYTES = 4 * 1024 * 1024


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
    return JSONResponse(await _cli(service, service.config, "doctor", "--json", "--quick"))


async def _cli(service: Service, config: Config | None, *args: str) -> Any:
    """The JSON a CLI command prints on the server's config, or `{"error": why}`."""
    root: list[str] = []
    if config is not None and config.file is not None:
        root += ["--config", str(config.file)]
    if config is not None and config.profile:
        root += ["--profile", config.profile]
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "agentframe_core",
        *root,
        *args,
        cwd=service.cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        assert process.stdout is not None
        out = await asyncio.wait_for(process.stdout.read(MAX_OUTPUT_BYTES), TIMEOUT_SECONDS)
        await asyncio.wait_for(process.wait(), TIMEOUT_SECONDS)
    except TimeoutError:
        return {"error": f"agentframe {args[0]} took longer than {TIMEOUT_SECONDS:.0f} s"}
    finally:
        if process.returncode is None:
            process.kill()
            # wait() also waits for the pipe's end, which a reader paused at a full buffer
            # never sees: read the rest (dropped) first, bounded
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(TIMEOUT_SECONDS):
                    while process.stdout is not None and await process.stdout.read(
                        MAX_OUTPUT_BYTES
                    ):
                        pass
                    await process.wait()
    try:
        return json.loads(out)
    except ValueError:
        return {"error": f"agentframe {args[0]} printed no JSON (exit {process.returncode})"}
