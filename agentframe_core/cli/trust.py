"""`agentframe trust [PATH] | --list | --revoke [PATH]`: the folders whose own code may run."""

from __future__ import annotations

from pathlib import Path

import click

from ..assembly.trust import (
    TRUST_ALL_ENV,
    revoke_folder,
    trust_all,
    trust_file,
    trust_folder,
    trusted_folders,
)
from .app import emit_json, handle_errors


@click.command()
@click.argument("path", default=".", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--list", "list_", is_flag=True, help="List the trusted folders.")
@click.option("--revoke", is_flag=True, help="Forget PATH: its code no longer runs.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for machines (with --list).")
def trust(path: Path, list_: bool, revoke: bool, as_json: bool) -> None:
    """Trust the folder PATH (default: here) and the folders below it: its Claude Code hooks,
    .mcp.json servers and slash commands' !`cmd` lines may run. Recorded for this user."""
    with handle_errors():
        if list_:
            folders = [str(f) for f in trusted_folders()]
            if as_json:
                emit_json({"folders": folders, "trust_all": trust_all(), "file": str(trust_file())})
                return
            if trust_all():
                click.echo(f"every folder is trusted (${TRUST_ALL_ENV} is set)")
            for folder in folders:
                click.echo(folder)
            if not folders:
                click.echo("no folder is trusted (agentframe trust PATH)")
        elif revoke:
            real = path.resolve()
            if revoke_folder(real):
                click.echo(f"revoked {real}")
            else:
                click.echo(f"{real} was not trusted")
        else:
            click.echo(f"trusted {trust_folder(path)}")
