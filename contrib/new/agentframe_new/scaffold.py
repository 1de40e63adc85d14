"""A plugin package's files, rendered from the templates, and written into a new folder.

The templates are package data (`templates/plugin/`): `common/` holds what every plugin has
(pyproject, plugin module, README, pytest config), and one folder per extension point, named
by its `Kind` value, holds its part, its kit-subclassing tests and its README section. The
kinds offered are the `EXTENSION_POINTS` table's, so a new extension point needs a template
folder and no change here (each kind's `_part.j2` names its part's module, class and kit).
They are rendered by a sandboxed Jinja environment that sees only the values passed here
(from the validated NAME, the extension point and the installed kernel's version) and
written into a folder created here: an existing folder is never written into.
"""

from __future__ import annotations

import re
import shutil
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path, PurePosixPath

from agentframe_core import AgentframeError, ExtensionPoint

__all__ = ["distribution_name", "kernel_requirement", "package_name", "plugin_files", "write_tree"]

#: What each kind's `_part.j2` defines for every template: the part's module and class, its
#: kit, a one-line summary and how a config selects it (README).
_PART_VALUES = ("module", "cls", "kit", "summary", "use")
#: The folder name in a template path that becomes the package's name.
_PACKAGE = "PACKAGE"
_SUFFIX = ".j2"
#: A release's major and minor numbers (what follows them, a patch or `rc1`, does not matter).
_RELEASE = re.compile(r"(\d+)\.(\d+)")


def package_name(name: str) -> str:
    return f"agentframe_{name.replace('-', '_')}"


def distribution_name(name: str) -> str:
    return f"agentframe-{name.replace('_', '-')}"


def kernel_requirement(version: str) -> str:
    """The kernel versions a plugin generated now may depend on: this minor release series
    (a 0.x minor release may change the contract), or this major one from 1.0 on."""
    found = _RELEASE.match(version)
    if found is None:
        raise AgentframeError(f"the kernel's version {version!r} is not MAJOR.MINOR[...]")
    major, minor = int(found[1]), int(found[2])
    upper = f"0.{minor + 1}" if major == 0 else str(major + 1)
    return f">={major}.{minor},<{upper}"


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
    """The package's files, by path relative to its folder, rendered for the part `name`,
    pinned to the installed kernel's release series."""
    from jinja2 import DictLoader, StrictUndefined
    from jinja2.sandbox import SandboxedEnvironment

    from agentframe_core import __version__

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
        "package": package_name(name),
        "distribution": distribution_name(name),
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
