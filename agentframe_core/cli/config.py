"""`agentframe config show|check|schema`."""

from __future__ import annotations

import asyncio
import logging

import click
import yaml

from .app import App, emit_json, pass_app


@click.group()
def config() -> None:
    """Show, check or export the schema of the config in force."""


@config.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON for machines.")
@pass_app
def show(app: App, as_json: bool) -> None:
    """Print the resolved config: profile applied, ${ENV} interpolated."""
    from ..assembly.config import read_config
    from ..support.redact import redact_data

    path = app.config_path()
    located = read_config(path, app.profile)
    source = str(path) if path else "embedded default"
    data = redact_data(located.data)
    if as_json:
        emit_json({"file": source, "config": data})
    else:
        click.echo(f"# from: {source}")
        click.echo(yaml.safe_dump(data, sort_keys=False).rstrip())


@config.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON for machines.")
@pass_app
def check(app: App, as_json: bool) -> None:
    """Validate the config against the installed plugins; exit 2 on any problem.

    Tool dispatchers are built and asked for their tools: two offering one name is an error."""
    from ..assembly.toolcheck import tool_name_clashes
    from ..contract.errors import ConfigError
    from ..support.redact import redact_text

    path = app.config_path()
    noticed = _Warnings()  # a part that works, but not wholly (an MCP server that cannot start)
    logging.getLogger("agentframe").addHandler(noticed)
    try:
        cfg = app.config()
        clashes = asyncio.run(tool_name_clashes(cfg))
        if clashes:
            raise ConfigError(clashes)
    except ConfigError as err:
        if as_json:
            emit_json(
                {
                    "ok": False,
                    "file": str(path) if path else None,
                    "issues": [
                        {
                            "file": str(i.file) if i.file else None,
                            "line": i.line,
                            "path": i.path,
                            "message": redact_text(i.message),
                        }
                        for i in err.issues
                    ],
                }
            )
            raise SystemExit(2) from None
        raise
    finally:
        logging.getLogger("agentframe").removeHandler(noticed)
    parts = {
        "adapter": cfg.adapter.name,
        "store": cfg.store.name,
        "context": cfg.context.name,
        "retrievers": [p.name for p in cfg.retrievers],
        "tools": [p.name for p in cfg.tools],
    }
    warnings = [redact_text(message) for message in noticed.messages]
    if as_json:
        file = str(path) if path else None
        emit_json({"ok": True, "file": file, "parts": parts, "warnings": warnings})
    else:
        click.secho(f"ok: {path or 'embedded default'}", fg="green")
        for key, value in parts.items():
            click.echo(f"  {key}: {value}")
        for message in warnings:
            click.secho(f"  warning: {message}", fg="yellow")


class _Warnings(logging.Handler):
    """The warnings agentframe's parts log while the check builds them and lists tools."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@config.command()
@pass_app
def schema(app: App) -> None:
    """Print the JSON Schema of the config file, with every installed part's options."""
    from ..assembly.schema import config_schema

    emit_json(config_schema(app.host))
