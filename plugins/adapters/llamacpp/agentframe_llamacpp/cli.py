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
from .runtime import LlamaRuntime, stop_state, whose
from .server import ServerRecord, log_tail

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
    """Show each configured model (running or not, where, whose, when it stops, its files),
    then the servers of this cache that other configs started."""
    with handle_errors():
        runtime = runtime_for(app)
        rows = runtime.status()
        others = [_other_row(record) for _, record in runtime.others()]
    if as_json:
        emit_json(rows + others)
        return
    for row in rows:
        mark = "*" if row["default"] else " "
        state = running_text(row) if row["running"] else "stopped"
        click.echo(f"{mark} {row['model']}: {state}")
        if row["running"]:
            click.echo(f"    whose: {row['whose']}")
        click.echo(f"    model: {row['file'] or 'not fetched yet'}  ({row['origin']})")
        click.echo(f"    log:   {row['log']}")
    for row in others:
        click.echo(f"  {row['model']}: {running_text(row)}, not this config's")
        click.echo(f"    whose: {row['whose']}")


def running_text(row: dict[str, Any]) -> str:
    """Where a running server is and which pid is which: the server's own, and the agentframe
    process that started it (a detached server, from `llama start`, has none)."""
    owner = row["owner"]
    started = "detached" if owner == "detached" else f"started by agentframe pid {owner}"
    return f"running at {row['url']} (server pid {row['pid']}, {started})"


def _other_row(record: ServerRecord) -> dict[str, Any]:
    return {
        "model": record.name,
        "ours": False,
        "running": True,
        "pid": record.pid,
        "url": record.base_url,
        "owner": record.owner or "detached",
        "whose": whose(record),
        "keep_alive": record.keep_alive,
        "holders": list(record.holders),
        "stops_at": record.stops_at,
        "file": record.model,
        "log": record.log,
    }


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
        click.echo(f"{row['model']}: running at {row['url']} (server pid {row['pid']})")


@llama.command()
@click.argument("models", nargs=-1)
@click.option(
    "--all", "every", is_flag=True, help="Also stop the servers other configs started here."
)
@json_option
@pass_app
def stop(app: App, models: tuple[str, ...], every: bool, as_json: bool) -> None:
    """Stop this config's servers, whoever started them (default: every configured model);
    with --all, every agentframe server of this cache as well (`llama status` lists them)."""
    with handle_errors():
        runtime = runtime_for(app)
        result = [
            {"model": name, "stopped": runtime.stop(name)}
            for name in _names(runtime, models, default_all=True)
        ]
        if every:
            for path, record in runtime.others():
                result.append(
                    {"model": record.name, "pid": record.pid, "stopped": stop_state(path)}
                )
    if as_json:
        emit_json(result)
        return
    for row in result:
        pid = f" (pid {row['pid']}, another config's)" if "pid" in row else ""
        click.echo(f"{row['model']}{pid}: {'stopped' if row['stopped'] else 'was not running'}")
    left = len(runtime.others()) if not every else 0
    if left:
        click.echo(
            f"{left} server(s) of other configs left running (`llama stop --all` stops them)"
        )


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
