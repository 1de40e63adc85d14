"""`agentframe config show|check|schema`."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

import click
import yaml

from .app import App, emit_json, pass_app, warn

if TYPE_CHECKING:
    from ..contract.configtypes import Config
    from ..contract.errors import ConfigIssue


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

    Tool dispatchers are built and asked for their tools: two offering one name is an error.
    A context builder's budget that the system prompt and the tools alone exceed is a
    warning (the config is valid; every prompt will be over that budget)."""
    from ..contract.errors import ConfigError
    from ..support.redact import redact_text

    path = app.config_path()
    noticed = _Warnings()  # a part that works, but not wholly (an MCP server that cannot start)
    logging.getLogger("agentframe").addHandler(noticed)
    try:
        cfg = app.config()
        blocks = _block_issues(app, cfg)
        clashes, warnings = asyncio.run(_built_checks(cfg))
        if blocks or clashes:
            raise ConfigError(blocks + clashes)
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
    warnings += [{"message": redact_text(message)} for message in noticed.messages]
    if as_json:
        found = {"ok": True, "file": str(path) if path else None, "parts": parts}
        emit_json({**found, "warnings": warnings})
    else:
        click.secho(f"ok: {path or 'embedded default'}", fg="green")
        for key, value in parts.items():
            click.echo(f"  {key}: {value}")
        for warning in warnings:
            warn(f"warning: {warning['message']}")


def _block_issues(app: App, cfg: Config) -> list[ConfigIssue]:
    """What each plugin finds wrong in its own top-level block (`agentframe_check_config`),
    every plugin asked even when one finds something."""
    from ..contract.errors import ConfigError, ConfigIssue

    app.host.load_implementers({"agentframe_check_config"})
    found: list[ConfigIssue] = []
    for impl in app.host.pm.hook.agentframe_check_config.get_hookimpls():
        try:
            impl.function(config=cfg)
        except ConfigError as err:
            found.extend(err.issues)
        except Exception as err:  # a plugin's bug: named, not a traceback
            message = f"plugin {impl.plugin_name}: its check raised {type(err).__name__}: {err}"
            found.append(ConfigIssue(cfg.file, "", message))
    return found


async def _built_checks(cfg: Config) -> tuple[list[ConfigIssue], list[dict[str, Any]]]:
    """What only built parts tell: tool name clashes (errors), an unmeetable budget (a
    warning)."""
    from pathlib import Path

    from ..assembly.budgetcheck import unmet_budget
    from ..assembly.toolcheck import name_clashes, offered_tools

    offered = await offered_tools(cfg)
    unmet = await unmet_budget(cfg, [tool for _, tool in offered], Path.cwd())
    return name_clashes(offered), [unmet] if unmet else []


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
