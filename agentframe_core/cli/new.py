"""`agentframe new plugin KIND NAME`: a separately installable plugin package to start from.

The templates are package data (`templates/plugin/`): `common/` holds what every plugin has
(pyproject, plugin module, README, pytest config), and one folder per extension point, named
by its `Kind` value, holds its part, its kit-subclassing tests and its README section. The
kinds offered are the `EXTENSION_POINTS` table's, so a new extension point needs a template
folder and no change here (each kind's `_part.j2` names its part's module, class and kit).
They are rendered by a sandboxed Jinja environment that sees only the values passed here
(from the validated NAME, the extension point and the kernel's version) and written into a
folder this command creates: an existing folder is never written into.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path, PurePosixPath

import click

from ..contract.errors import AgentframeError
from ..contract.extensions import EXTENSION_POINTS, ExtensionPoint
from .app import App, pass_app

__all__ = ["kernel_requirement", "new", "plugin_files", "write_tree"]

#: A part name: lowercase ASCII words joined by single `-` or `_`, so that it is a Python
#: identifier once `-` is `_`, and `agentframe-NAME` a valid distribution name.
_NAME = re.compile(r"[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*")
_MAX_NAME = 40

#: What each kind's `_part.j2` defines for every template: the part's module and class, its
#: kit, a one-line summary and how a config selects it (README).
_PART_VALUES = ("module", "cls", "kit", "summary", "use")
#: The folder name in a template path that becomes the package's name.
_PACKAGE = "PACKAGE"
_SUFFIX = ".j2"


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
    click.echo(f"  distribution {_distribution(name)}, package {_package(name)}")
    click.echo("Next:")
    click.echo(f'  pip install -e "{shown}[test]"')
    click.echo(f"  cd {shown} && python -m pytest")


# -- the name ----------------------------------------------------------------------------------


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
    that one word means one thing), a plugin (entry point) or the package's module."""
    host = app.host
    for point in EXTENSION_POINTS:
        for spec in host.parts(point.kind):
            if spec.name == name:
                return f"the plugin {spec.plugin!r} registers a {point.protocol_name} of that name"
    from ..assembly.plugins import BUILTIN

    if name == BUILTIN or name in host.entry_points():
        return "an installed plugin has that name"
    if importlib.util.find_spec(_package(name)) is not None:
        return f"the module {_package(name)} is installed already"
    return None


def _package(name: str) -> str:
    return f"agentframe_{name.replace('-', '_')}"


def _distribution(name: str) -> str:
    return f"agentframe-{name.replace('_', '-')}"


def kernel_requirement(version: str) -> str:
    """The kernel versions a plugin generated now may depend on: this minor release series
    (a 0.x minor release may change the contract), or this major one from 1.0 on."""
    major, minor = (int(part) for part in version.split(".")[:2])
    upper = f"0.{minor + 1}" if major == 0 else str(major + 1)
    return f">={major}.{minor},<{upper}"


# -- rendering ---------------------------------------------------------------------------------


def _templates() -> Traversable:
    return resources.files(__package__).joinpath("templates", "plugin")


def _read_tree(folder: Traversable, prefix: PurePosixPath) -> dict[str, str]:
    found: dict[str, str] = {}
    for child in folder.iterdir():
        path = prefix / child.name
        if child.is_dir():
            found.update(_read_tree(child, path))
        elif child.name.endswith(_SUFFIX):
            found[str(path)] = child.read_text(encoding="utf-8")
    return found


def _is_fragment(name: str) -> bool:
    """`_part.j2`, `_readme.md.j2`: included by other templates, not files of the package
    (`__init__.py.j2` is one)."""
    return name.startswith("_") and not name.startswith("__")


def plugin_files(point: ExtensionPoint, name: str) -> dict[PurePosixPath, str]:
    """The package's files, by path relative to its folder, rendered for the part `name`."""
    from jinja2 import DictLoader, StrictUndefined
    from jinja2.sandbox import SandboxedEnvironment

    from .. import __version__

    root = _templates()
    kind = point.kind.value
    if not root.joinpath(kind).is_dir():  # a new extension point without its template yet
        raise AgentframeError(f"no plugin template for the kind {kind!r} in {root}")
    sources = _read_tree(root, PurePosixPath())
    env = SandboxedEnvironment(
        loader=DictLoader(sources),
        autoescape=False,
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals.clear()  # the templates see the values below and nothing else
    requirement = kernel_requirement(__version__)
    values = {
        "name": name,
        "kind": kind,
        "hook": point.hook,
        "protocol": point.protocol_name,
        "package": _package(name),
        "distribution": _distribution(name),
        "prefix": "".join(word.capitalize() for word in re.split(r"[-_]", name)),
        "kernel": f"agentframe{requirement}",
        "kernel_test": f"agentframe[test]{requirement}",
    }
    part = env.get_template(f"{kind}/_part.j2").make_module(values)
    values |= {key: getattr(part, key) for key in _PART_VALUES}
    files: dict[PurePosixPath, str] = {}
    for source in sorted(sources):
        path = PurePosixPath(source)
        if path.parts[0] not in ("common", kind) or _is_fragment(path.name):
            continue  # another kind's, or a fragment the others include
        output = [values["package"] if p == _PACKAGE else p for p in path.parts[1:]]
        files[PurePosixPath(*output).with_suffix("")] = env.get_template(source).render(values)
    return files


def write_tree(target: Path, files: dict[PurePosixPath, str]) -> None:
    """Create `target` and the files in it; an existing `target` is refused, and a failed
    write removes the folder this call created, so trying again starts clean."""
    try:
        target.mkdir()
    except FileExistsError:
        raise AgentframeError(f"{target} exists already: nothing was written") from None
    except OSError as err:
        raise AgentframeError(f"cannot create {target}: {err.strerror}") from None
    path = target
    try:
        for relative, text in files.items():
            path = target.joinpath(relative)
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("x", encoding="utf-8") as out:
                out.write(text)
    except OSError as err:
        shutil.rmtree(target, ignore_errors=True)
        raise AgentframeError(f"cannot write {path}: {err.strerror}; nothing was kept") from None
