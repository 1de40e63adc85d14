"""`agentframe new plugin KIND NAME`: a separately installable plugin package to start from.

KIND is an extension point, NAME the part's name; both are checked here (a name an installed
plugin uses already is refused), and `scaffold.py` renders and writes the package.
"""

from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path

import click

from agentframe_core import EXTENSION_POINTS, ExtensionPoint
from agentframe_core.cli import App, pass_app

from .scaffold import distribution_name, package_name, plugin_files, write_tree

__all__ = ["check_name", "installed_clash", "new"]

#: A part name: lowercase ASCII words joined by single `-` or `_`, so that it is a Python
#: identifier once `-` is `_`, and `agentframe-NAME` a valid distribution name.
_NAME = re.compile(r"[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*")
_MAX_NAME = 40


@click.group()
def new() -> None:
    """Scaffold a new package to start from."""


def _kinds_help() -> str:
    return ", ".join(f"{p.kind.value} ({p.protocol_name})" for p in EXTENSION_POINTS)


def _point(_ctx: click.Context, _param: click.Parameter, value: str) -> ExtensionPoint:
    """KIND: an extension point by its config key (`Kind` value), or the start of one,
    singular or plural: `retriever` and `agents` name `retrievers` and `agent_loaders`."""
    word = value.strip().lower().replace("-", "_")
    for guess in dict.fromkeys([word, word.removesuffix("s")]):
        found = [p for p in EXTENSION_POINTS if guess and p.kind.value.startswith(guess)]
        if len(found) == 1:
            return found[0]
    raise click.BadParameter(
        f"{value!r} is not an extension point; KIND is one of: {_kinds_help()}"
    )


@new.command("plugin", epilog=f"KIND: {_kinds_help()}; or the start of one (retriever, agents).")
@click.argument("point", metavar="KIND", callback=_point)
@click.argument("name")
@click.option(
    "--dir",
    "parent",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=".",
    show_default=True,
    help="The folder to create the package's folder NAME in.",
)
@pass_app
def plugin(app: App, point: ExtensionPoint, name: str, parent: Path) -> None:
    """Create the folder NAME: a plugin package registering the KIND part NAME.

    It holds a pyproject.toml (the entry point in the group `agentframe`), the plugin module,
    a small working part with its options model, a README and tests that subclass the kind's
    conformance kit. `pip install -e "./NAME[test]"`, then `python -m pytest` in it.
    """
    check_name(name)
    clash = installed_clash(app, name)
    if clash:
        raise click.BadParameter(f"{name!r}: {clash}; choose another name", param_hint="NAME")
    target = parent.resolve() / name
    files = plugin_files(point, name)
    write_tree(target, files)
    shown = click.format_filename(os.path.join(parent, name))  # ./NAME: a path to pip
    click.echo(f"Created {shown}/: the {point.protocol_name} part {name!r}, {len(files)} files")
    click.echo(f"  distribution {distribution_name(name)}, package {package_name(name)}")
    click.echo("Next:")
    click.echo(f'  pip install -e "{shown}[test]"')
    click.echo(f"  cd {shown} && python -m pytest")


def check_name(name: str) -> None:
    """NAME is the part's name, the entry point's and (after `agentframe-`) the distribution's."""
    if name.startswith("agentframe"):
        raise click.BadParameter(
            f"{name!r}: give the part's own name; the package is agentframe_NAME already",
            param_hint="NAME",
        )
    if len(name) > _MAX_NAME or not _NAME.fullmatch(name):
        raise click.BadParameter(
            f"{name!r}: use at most {_MAX_NAME} lowercase letters and digits, words joined by "
            "single '-' or '_', starting with a letter (e.g. my-store)",
            param_hint="NAME",
        )


def installed_clash(app: App, name: str) -> str | None:
    """Why NAME would collide with what is installed: a part of that name (of any kind, so
    that one word means one thing), a plugin (entry point) or the package's module. The
    kernel's own plugin, `agentframe`, is refused by `check_name` already."""
    host = app.host
    for point in EXTENSION_POINTS:
        for spec in host.parts(point.kind):
            if spec.name == name:
                return f"the plugin {spec.plugin!r} registers a {point.protocol_name} of that name"
    if name in host.entry_points():
        return "an installed plugin has that name"
    if importlib.util.find_spec(package_name(name)) is not None:
        return f"the module {package_name(name)} is installed already"
    return None
