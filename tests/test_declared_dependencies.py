"""Every distribution declares what its modules import.

A plugin that imports a package it does not declare works in the checkout (something else
brought the package in) and breaks in a venv that installs it alone. Each distribution's
imports, type-only and function-level ones included, must map to its own packages, the
standard library, or a distribution named in its dependencies or one of its extras (an
optional import belongs in an extra).
"""

from __future__ import annotations

import ast
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = [
    ROOT,
    *sorted(p.parent for p in ROOT.glob("plugins/*/*/pyproject.toml")),
    *sorted(p.parent for p in ROOT.glob("contrib/*/pyproject.toml")),
    *sorted(p.parent for p in ROOT.glob("docs/examples/*/pyproject.toml")),
]


def _project(folder: Path) -> dict[str, object]:
    return tomllib.loads((folder / "pyproject.toml").read_text())


def _packages(folder: Path) -> list[Path]:
    include = _project(folder)["tool"]["setuptools"]["packages"]["find"]["include"]  # type: ignore[index]
    return [folder / pattern.rstrip("*") for pattern in include]


def _declared(folder: Path) -> set[str]:
    project = _project(folder)["project"]
    assert isinstance(project, dict)
    requirements = list(project.get("dependencies", []))
    for extra in project.get("optional-dependencies", {}).values():
        requirements.extend(extra)
    return {canonicalize_name(Requirement(r).name) for r in requirements}


def _imported(package: Path) -> set[str]:
    names: set[str] = set()
    for file in package.rglob("*.py"):
        for node in ast.walk(ast.parse(file.read_text(), str(file))):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda f: str(f.relative_to(ROOT)) or "kernel")
def test_every_import_is_declared(folder: Path) -> None:
    owners = packages_distributions()
    own = {package.name for package in _packages(folder)}
    name = canonicalize_name(str(_project(folder)["project"]["name"]))  # type: ignore[index]
    declared = _declared(folder) | {name}
    missing = []
    for package in _packages(folder):
        for module in sorted(_imported(package) - own - set(sys.stdlib_module_names)):
            distributions = {canonicalize_name(d) for d in owners.get(module, [])}
            if not distributions:  # not installed here: an optional import named in an extra
                if canonicalize_name(module) not in declared:
                    missing.append(f"{module} (no installed distribution provides it)")
            elif not distributions & declared:
                missing.append(f"{module} (from {', '.join(sorted(distributions))})")
    assert not missing, f"{name} imports what it does not declare: {'; '.join(missing)}"
