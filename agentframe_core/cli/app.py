"""What every command shares: the plugin host, the config in force, output helpers."""

from __future__ import annotations

import contextlib
import json
import logging
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from ..assembly.plugins import PluginHost
    from ..contract.configtypes import Config, PartConfig
    from ..contract.protocols import Stack
    from ..contract.registry import Kind

EXIT_ERROR = 1
EXIT_CONFIG = 2


@dataclass
class App:
    config_file: str | None = None
    profile: str | None = None
    verbose: int = 0
    _host: PluginHost | None = field(default=None, repr=False)

    def configure(self, config_file: str | None, profile: str | None, verbose: int) -> None:
        """Apply the root options (the App may exist already: resolving a plugin command
        needs the plugin host before the root callback runs)."""
        self.config_file, self.profile, self.verbose = config_file, profile, verbose
        from ..support.redact import RedactingFormatter

        level = [logging.WARNING, logging.INFO, logging.DEBUG][min(verbose, 2)]
        logging.basicConfig(level=level, force=True)
        for name in ("stevedore", "asyncio"):  # plugin discovery and the loop: only at -vvv
            logging.getLogger(name).setLevel(logging.DEBUG if verbose > 2 else logging.WARNING)
        for handler in logging.getLogger().handlers:  # secrets never reach a log line
            handler.setFormatter(RedactingFormatter("%(levelname)s %(name)s: %(message)s"))
            # The level is the handler's too: a library that sets its own logger to DEBUG
            # when imported (bm25s does) would otherwise print its debug lines without -v.
            handler.setLevel(level)

    @property
    def host(self) -> PluginHost:
        if self._host is None:
            from ..assembly.plugins import PluginHost

            self._host = PluginHost()
        return self._host

    def config_path(self) -> Path | None:
        from ..assembly.config import find_config_file

        return find_config_file(self.config_file)

    def config(self) -> Config:
        from ..assembly.config import load_config

        return load_config(self.host, self.config_path(), self.profile)

    def part_lists(self) -> dict[Kind, list[PartConfig]]:
        """The config's retrievers and tool dispatchers only: for commands that need neither
        a model nor a store, so they work where those plugins are not installed."""
        from ..assembly.config import load_part_lists

        return load_part_lists(self.host, self.config_path(), self.profile)

    def stack(self) -> Stack:
        from ..assembly.stack import build_stack

        return build_stack(self.config(), self.host)


pass_app = click.make_pass_decorator(App, ensure=True)


def emit_json(value: Any) -> None:
    click.echo(json.dumps(value, indent=2, default=str, ensure_ascii=False))


def utf8_problem(text: str) -> str | None:
    """Why `text` cannot be stored or sent (an argument or a line that was not UTF-8 arrives
    with surrogate escapes), or None when it is valid text."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as err:
        raw = text[err.start].encode("utf-8", "surrogateescape").hex()
        return f"not valid UTF-8 text: byte 0x{raw} at character {err.start}"
    return None


def utf8_argument(_ctx: click.Context, _param: click.Parameter, value: Any) -> Any:
    """A click callback refusing a text argument (or each of several) that is not UTF-8."""
    for text in value if isinstance(value, tuple | list) else [value]:
        problem = utf8_problem(text) if isinstance(text, str) else None
        if problem:
            raise click.BadParameter(problem)
    return value


def warn(message: str) -> None:
    click.secho(message, fg="yellow", err=True)


@contextlib.contextmanager
def handle_errors() -> Iterator[None]:
    """Turn the errors a user can act on into a message and an exit code, not a traceback."""
    from ..contract.errors import AgentframeError, ConfigError
    from ..support.redact import redact_text

    try:
        yield
    except ConfigError as err:
        click.secho("config error:", fg="red", bold=True, err=True)
        for issue in err.issues:
            click.echo(f"  {redact_text(str(issue))}", err=True)
        sys.exit(EXIT_CONFIG)
    except AgentframeError as err:
        click.secho(f"error: {redact_text(str(err))}", fg="red", err=True)
        sys.exit(EXIT_ERROR)
