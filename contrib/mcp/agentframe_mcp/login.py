"""`agentframe mcp login SERVER` and `agentframe mcp logout SERVER`.

Login forgets the server's tokens (not its registration), connects with the browser step
allowed (`auth.LoginFlow`: a loopback redirect, the URL printed when no browser opens, a
bounded wait), and lists the tools to prove the tokens work. Tokens are never printed.
"""

from __future__ import annotations

import asyncio
import sys

import click

from agentframe_core.cli import App, handle_errors, pass_app

from .auth import LoginFlow, OAuthSettings, TokenStore, token_path, union_scopes
from .connection import McpConnection, ServerUnavailableError
from .options import HttpServer
from .parts import app_toolsets

__all__ = ["log_in", "login", "logout"]


def _connection(app: App, server: str) -> McpConnection:
    toolsets = app_toolsets(app)
    found = next((t.connections[server] for t in toolsets if server in t.connections), None)
    if found is None:
        known = ", ".join(sorted(n for t in toolsets for n in t.connections)) or "none"
        click.secho(f"error: no MCP server {server!r}; configured: {known}", fg="red", err=True)
        sys.exit(2)
    if not isinstance(found.config, HttpServer):
        click.secho(f"error: MCP server {server!r} is not an HTTP server", fg="red", err=True)
        sys.exit(2)
    return found


@click.command("login")
@click.argument("server")
@click.option(
    "--timeout",
    type=click.FloatRange(1, 3600),
    help="Seconds to wait for the browser (default: the server's auth.login_timeout, 300).",
)
@pass_app
def login(app: App, server: str, timeout: float | None) -> None:
    """Log in to SERVER (OAuth in a browser, redirected to a loopback port); its tokens are
    kept in your data folder, readable by you alone."""
    with handle_errors():
        connection = _connection(app, server)
        try:
            count = asyncio.run(log_in(connection, timeout))
        except ServerUnavailableError as err:
            click.secho(f"error: {err}", fg="red", err=True)
            sys.exit(1)
    click.echo(f"logged in to {server} ({count} tools)")


async def log_in(connection: McpConnection, timeout: float | None = None) -> int:
    """Run the login of an HTTP server; the number of its tools once logged in."""
    config = connection.config
    assert isinstance(config, HttpServer)
    settings = config.auth or OAuthSettings()
    store = TokenStore(connection.name, config.url)
    store.forget_tokens()
    flow = LoginFlow(
        store.redirect_port() or settings.redirect_port,
        timeout or settings.login_timeout,
        lambda text: click.echo(text, err=True),
        union_scopes(" ".join(settings.scopes), store.wanted_scope()),
    )
    await flow.start()
    connection.login = flow
    try:
        await connection.ensure()
        return len(connection.tools)
    finally:
        await flow.close()
        await connection.aclose()


@click.command("logout")
@click.argument("server")
def logout(server: str) -> None:
    """Forget SERVER's tokens (and its client registration)."""
    path = token_path(server)
    try:
        path.unlink()
    except FileNotFoundError:
        click.echo(f"no tokens stored for {server}")
        return
    click.echo(f"logged out of {server}")
