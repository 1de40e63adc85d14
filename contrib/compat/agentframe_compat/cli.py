"""`agentframe cc-plugins add|list|remove`: Claude Code plugins, by folder."""

from __future__ import annotations

from pathlib import Path

import click

from agentframe_core.cli import emit_json, handle_errors

from .plugins import PluginError, add_plugins, installed_plugins, plugin_parts, remove_plugin


@click.group("cc-plugins")
def cc_plugins() -> None:
    """Claude Code plugins (.claude-plugin/plugin.json): their commands, agents and skills."""


@cc_plugins.command()
@click.argument("path", type=click.Path(exists=True, file_okay=False, path_type=Path))
def add(path: Path) -> None:
    """Add the plugin in PATH, or every local plugin of the marketplace in PATH. The folder
    is recorded, not copied: the plugin is used as it is there."""
    with handle_errors():
        added, skipped = add_plugins(path)
        for plugin in added:
            click.echo(f"added {plugin.name}  {plugin.root}")
        for note in skipped:
            click.secho(f"skipped: {note}", fg="yellow", err=True)


@cc_plugins.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for machines.")
def list_(as_json: bool) -> None:
    """The installed plugins and what each offers."""
    rows = []
    for plugin in installed_plugins():
        row: dict[str, object] = {"name": plugin.name, "root": str(plugin.root)}
        try:
            parts = plugin_parts(plugin)
        except PluginError as err:
            row["error"] = str(err)
        else:
            row.update(
                commands=[str(p) for p in parts.commands],
                agents=[str(p) for p in parts.agents],
                skills=[str(p) for p in parts.skills],
                hooks=[str(p) for p in parts.hooks],
                mcp=[str(p) for p in parts.mcp],
            )
        rows.append(row)
    if as_json:
        emit_json({"plugins": rows})
        return
    if not rows:
        click.echo("no Claude Code plugins installed (agentframe cc-plugins add PATH)")
    for row in rows:
        click.echo(f"{row['name']}  {row['root']}")
        if "error" in row:
            click.secho(f"    error: {row['error']}", fg="red")
            continue
        for key in ("commands", "agents", "skills", "hooks", "mcp"):
            values = row[key]
            if isinstance(values, list) and values:
                click.secho(f"    {key}: {', '.join(values)}", dim=True)


@cc_plugins.command()
@click.argument("name")
def remove(name: str) -> None:
    """Forget the plugin NAME (its folder is left as it is)."""
    with handle_errors():
        gone = remove_plugin(name)
        click.echo(f"removed {gone.name}  {gone.root}")
