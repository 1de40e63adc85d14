"""`agentframe plugins`: what is installed and what each plugin provides."""

from __future__ import annotations

import dataclasses

import click

from .app import App, emit_json, pass_app


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON for machines.")
@click.option("--traceback", is_flag=True, help="Show the full traceback of load errors.")
@pass_app
def plugins(app: App, as_json: bool, traceback: bool) -> None:
    """List installed plugins: distribution, version, hooks, registered parts, load errors.

    Exits with 1 when a plugin failed to load (the others are listed and usable).
    """
    infos = app.host.plugins()
    failed = any(info.errors for info in infos)
    if as_json:
        emit_json(
            [
                {
                    **dataclasses.asdict(info),
                    "errors": [{"stage": e.stage, "error": e.error} for e in info.errors],
                }
                for info in infos
            ]
        )
    else:
        for info in infos:
            version = f" {info.version}" if info.version else ""
            dist = info.distribution or "?"
            status = (
                click.style("FAILED", fg="red") if info.errors else click.style("ok", fg="green")
            )
            click.echo(f"{click.style(info.name, bold=True)}  ({dist}{version})  {status}")
            for kind, names in info.registers.items():
                click.echo(f"    {kind}: {', '.join(names)}")
            if info.commands:
                click.echo(f"    commands: {', '.join(info.commands)}")
            for error in info.errors:
                click.secho(f"    {error.stage}: {error.error}", fg="red")
                if traceback:
                    click.echo(error.traceback)
    if failed:
        raise SystemExit(1)
