"""`agentframe llama status|start|stop|logs|pull`: the runtime of the config in force.

Only the config's `adapter` block is read (a missing store plugin does not stop these
commands); when the config uses another adapter, llamacpp's defaults apply.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import click

from agentframe_core.cli import App, emit_json, handle_errors, pass_app, warn

from .options import LlamaCppOptions
from .runtime import LlamaRuntime
from .server import log_tail

__all__ = ["llama"]

json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON.")


def runtime_for(app: App) -> LlamaRuntime:
    """The runtime of the config's adapter block, validated by the kernel (its messages, with
    file and line), or of llamacpp's defaults when the config uses another adapter."""
    from agentframe_core import Kind, load_part

    part = load_part(
        app.host,
        Kind.ADAPTER,
        app.config_path(),
        app.profile,
        absent="llamacpp",  # none in the file: llamacpp, not the kernel default
        only="llamacpp",
    )
    if part is None:
        warn("the config's adapter is not llamacpp: using llamacpp's defaults")
        return LlamaRuntime(LlamaCppOptions())
    assert isinstance(part.options, LlamaCppOptions)
    return LlamaRuntime(part.options)


def _names(runtime: LlamaRuntime, given: tuple[str, ...], default_all: bool) -> list[str]:
    if given:
        return [runtime.resolve(name) for name in given]
    return list(runtime.options.models) if default_all else [runtime.options.default]


@click.group()
def llama() -> None:
    """Run and inspect the local llama.cpp models (llama-server)."""


@llama.command()
@json_option
@pass_app
def status(app: App, as_json: bool) -> None:
    """Show each configured model: running or not, where, and its files."""
    with handle_errors():
        rows = runtime_for(app).status()
    if as_json:
        emit_json(rows)
        return
    for row in rows:
        mark = "*" if row["default"] else " "
        state = (
            f"running at {row['url']} (pid {row['pid']}, {row['owner']})"
            if row["running"]
            else "stopped"
        )
        click.echo(f"{mark} {row['model']}: {state}")
        click.echo(f"    model: {row['file'] or 'not fetched yet'}  ({row['origin']})")
        click.echo(f"    log:   {row['log']}")


@llama.command()
@click.argument("models", nargs=-1)
@json_option
@pass_app
def start(app: App, models: tuple[str, ...], as_json: bool) -> None:
    """Start servers that keep running after this command (default: the default model)."""
    with handle_errors():
        runtime = runtime_for(app)
        started = []
        for name in _names(runtime, models, default_all=False):
            server = asyncio.run(runtime.start(name, detached=True))
            started.append({"model": name, "url": server.base_url, "pid": server.record.pid})
    if as_json:
        emit_json(started)
        return
    for row in started:
        click.echo(f"{row['model']}: running at {row['url']} (pid {row['pid']})")


@llama.command()
@click.argument("models", nargs=-1)
@json_option
@pass_app
def stop(app: App, models: tuple[str, ...], as_json: bool) -> None:
    """Stop servers, whoever started them (default: every configured model)."""
    with handle_errors():
        runtime = runtime_for(app)
        result = {name: runtime.stop(name) for name in _names(runtime, models, default_all=True)}
    if as_json:
        emit_json([{"model": name, "stopped": stopped} for name, stopped in result.items()])
        return
    for name, stopped in result.items():
        click.echo(f"{name}: {'stopped' if stopped else 'was not running'}")


@llama.command()
@click.argument("model", required=False)
@click.option("-n", "--lines", default=50, show_default=True, help="How many lines.")
@json_option
@pass_app
def logs(app: App, model: str | None, lines: int, as_json: bool) -> None:
    """Print the end of a model's server log (default: the default model)."""
    with handle_errors():
        runtime = runtime_for(app)
        name = runtime.resolve(model)
        path = runtime.log_file(name)
    text = log_tail(path, lines) if path.exists() else ""
    if as_json:
        emit_json({"model": name, "log": str(path), "lines": text.splitlines()})
    elif not path.exists():
        click.echo(f"{name}: no log yet ({path})", err=True)
    else:
        click.echo(text)


@llama.command()
@click.argument("models", nargs=-1)
@click.option("--force", is_flag=True, help="Fetch again even if cached and valid.")
@json_option
@pass_app
def pull(app: App, models: tuple[str, ...], force: bool, as_json: bool) -> None:
    """Fetch and verify model files (default: every configured model)."""
    with handle_errors():
        runtime = runtime_for(app)
        pulled: list[dict[str, Any]] = []
        for name in _names(runtime, models, default_all=True):
            found = runtime.pull(name, force=force)
            pulled.append(
                {
                    "model": name,
                    "file": str(found.path),
                    "size": Path(found.path).stat().st_size,
                    "sha256": found.sha256,
                    "origin": found.origin,
                    "version": found.version,
                }
            )
    if as_json:
        emit_json(pulled)
        return
    for row in pulled:
        click.echo(f"{row['model']}: {row['file']} ({row['size'] / 2**20:.1f} MiB)")
