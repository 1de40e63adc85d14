"""`agentframe serve`: the configured stack's agents over HTTP."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from agentframe_core import find_agents
from agentframe_core.cli import App, handle_errors, pass_app

from .gate import is_loopback
from .keys import Keys
from .settings import serve_settings

__all__ = ["serve", "serve_stack"]

EXIT_USAGE = 2


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(1, 65535))
@click.option("--agent", "-a", "agents", multiple=True, metavar="NAME", help="Agents to offer.")
@click.option("--kg", metavar="DIR", help="A kg build's output folder for GET /v1/kg.")
@pass_app
def serve(app: App, host: str, port: int, agents: tuple[str, ...], kg: str | None) -> None:
    """Serve the agents over HTTP: OpenAI APIs, AG-UI, A2A.

    Each agent of the configured stack is a model of the OpenAI Chat Completions and
    Responses APIs, an AG-UI endpoint and an A2A agent (and agentframe's /v1/sessions).
    Without --agent, every agent is offered. Anything but a loopback address needs API keys
    (serve.api_keys or the environment)."""
    serve_stack(app, host, port, agents, kg)


def serve_stack(
    app: App, host: str, port: int, agents: tuple[str, ...], kg: str | None = None
) -> None:
    """What `agentframe serve` does, for commands that serve too (`agentframe ui`)."""
    with handle_errors():
        config = app.config()
        settings = serve_settings(config)
        if kg is not None:
            settings = settings.model_copy(update={"kg_folder": kg})
        try:
            keys = Keys.load(settings)
        except ValueError as err:
            click.secho(f"error: {err}", fg="red", err=True)
            sys.exit(EXIT_USAGE)
        loopback = is_loopback(host)
        if not loopback and not keys.required:
            click.secho(
                f"error: binding {host} (not loopback) needs API keys: set "
                f"${settings.api_keys_env} or serve.api_keys in the config",
                fg="red",
                err=True,
            )
            sys.exit(EXIT_USAGE)
        cwd = Path.cwd()
        catalog = find_agents(app.host, config, cwd)
        offered = [catalog.get(name) for name in agents] if agents else catalog.definitions
        from .server import run_server

        run_server(app.stack(), offered, cwd, settings, keys, host=host, port=port, config=config)
