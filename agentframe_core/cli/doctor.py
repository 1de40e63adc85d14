"""`agentframe doctor`: the checks of `agentframe_core.diagnose`, printed; exit 1 if any
failed."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

import click

from .app import App, emit_json, pass_app


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON for machines.")
@click.option("--quick", is_flag=True, help="Skip starting the model and asking it for one token.")
@pass_app
def doctor(app: App, as_json: bool, quick: bool) -> None:
    """Check the installation and the config in force, and ask the configured model for one
    token (unless --quick); exit 1 if anything is broken."""
    from ..assembly.diagnose import diagnose
    from ..support.redact import redact_data, redact_text

    checks = diagnose(app.config_path(), app.profile, cwd=Path.cwd(), quick=quick, host=app.host)
    broken = [c for c in checks if not c.ok]
    if as_json:
        shown = [redact_data(asdict(c)) for c in checks]  # a plugin's detail may hold a URL
        emit_json({"ok": not broken, "checks": shown})
    else:
        for check in checks:
            mark = click.style("ok  ", fg="green") if check.ok else click.style("FAIL", fg="red")
            click.echo(f"{mark} {check.name}: {redact_text(check.detail)}")
            if check.fix:
                click.echo("     " + redact_text(check.fix).replace("\n", "\n     "))
        summary = "everything looks fine" if not broken else f"{len(broken)} problem(s)"
        click.secho(summary, fg="green" if not broken else "red", bold=True)
    if broken:
        raise SystemExit(1)
