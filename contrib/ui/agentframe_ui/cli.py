"""`agentframe ui`: `agentframe serve` with the web UI, and the page opened in a browser."""

from __future__ import annotations

import threading
import time
import urllib.request
import webbrowser

import click
from agentframe_serve import serve_stack

from agentframe_core.cli import App, pass_app

__all__ = ["ui"]


@click.command("ui")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(1, 65535))
@click.option("--agent", "-a", "agents", multiple=True, metavar="NAME", help="Agents to offer.")
@click.option("--kg", metavar="DIR", help="A kg build's output folder to show.")
@click.option("--no-browser", is_flag=True, help="Print the address; open no browser.")
@pass_app
def ui(
    app: App, host: str, port: int, agents: tuple[str, ...], kg: str | None, no_browser: bool
) -> None:
    """Serve the agents with the web UI, and open it in the browser.

    The same server as `agentframe serve` (every endpoint, the same keys and limits), with
    chat, sessions, traces, the knowledge graph (--kg or serve.kg_folder) and the stack."""
    url = f"http://{'[' + host + ']' if ':' in host else host}:{port}/"
    click.echo(f"agentframe ui: {url}", err=True)
    if not no_browser:
        threading.Thread(target=_open_when_up, args=(url,), daemon=True).start()
    serve_stack(app, host, port, agents, kg)


def _open_when_up(url: str, wait: float = 30.0) -> None:
    """Open `url` once the server answers its health check (a browser opened earlier would
    show an error page)."""
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url + "healthz", timeout=1):
                webbrowser.open(url)
                return
        except OSError:
            time.sleep(0.2)
