"""The uvicorn process: no access log (paths only, never a header, key or prompt), no
model request shown even at `-vv`, and on
SIGTERM it stops accepting, lets running requests finish for `drain_seconds`, cancels the
rest (their sessions stay well-formed) and exits."""

from __future__ import annotations

import logging
from pathlib import Path

import click
import uvicorn
from starlette.applications import Starlette

from agentframe_core import AgentDefinition, Config, Stack

from .app import build_app
from .connections import guarded_protocol
from .gate import is_loopback
from .keys import Keys
from .settings import ServeSettings

__all__ = ["run_server", "uvicorn_config"]


def uvicorn_config(
    app: Starlette, settings: ServeSettings, *, host: str, port: int
) -> uvicorn.Config:
    """uvicorn's settings for `app`: the `serve:` block's timeouts and caps (see
    `connections`), no access log, agentframe's logging."""
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        http=guarded_protocol(settings),
        h11_max_incomplete_event_size=settings.max_header_bytes,
        timeout_keep_alive=settings.keep_alive_seconds,
        log_level="warning",
        access_log=False,
        timeout_graceful_shutdown=max(1, round(settings.drain_seconds)),
        lifespan="on",
        log_config=None,  # agentframe's logging: its formatter redacts secrets
    )


def run_server(
    stack: Stack,
    agents: list[AgentDefinition],
    cwd: Path,
    settings: ServeSettings,
    keys: Keys,
    *,
    host: str,
    port: int,
    config: Config | None = None,
) -> None:
    # `-vv` shows each model request (`agentframe.prompt`, DEBUG): clients' prompts, never
    # in a server's logs.
    prompts = logging.getLogger("agentframe.prompt")
    prompts.setLevel(max(logging.INFO, prompts.getEffectiveLevel()))
    url = f"http://{'[' + host + ']' if ':' in host else host}:{port}"
    app = build_app(
        stack, agents, cwd, settings, keys, loopback=is_loopback(host), base_url=url, config=config
    )
    server_config = uvicorn_config(app, settings, host=host, port=port)
    names = ", ".join(a.name for a in agents) or "none"
    click.echo(f"serving {len(agents)} agent(s) on http://{host}:{port} ({names})", err=True)
    uvicorn.Server(server_config).run()
