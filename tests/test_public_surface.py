"""The public surface: what in-repo plugins import from the kernel, checked by reading their
source (an AST scan), so a plugin that reaches into an internal module fails here, not when the
internal module changes."""

from __future__ import annotations

import ast
import importlib
from collections.abc import Iterator
from pathlib import Path

import pytest

import agentframe_core

ROOT = Path(__file__).resolve().parent.parent
PLUGIN_FOLDERS = ("plugins", "contrib", "docs/examples")
#: The modules a plugin may import from, and the names each offers.
SURFACE = {
    "agentframe_core": set(agentframe_core.__all__),
    "agentframe_core.testing": set(importlib.import_module("agentframe_core.testing").__all__),
    "agentframe_core.cli": {"App", "emit_json", "handle_errors", "pass_app", "warn"},
}


def plugin_files() -> Iterator[Path]:
    for folder in PLUGIN_FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if not {".venv", "build", "node_modules"} & set(path.parts):
                yield path


def kernel_imports(tree: ast.AST) -> Iterator[tuple[int, str, str]]:
    """(line, module, name) of every kernel name a module imports; name '*' for a whole module
    (`import agentframe_core.x`), which the surface forbids."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.split(".")[0] == "agentframe_core":
                for alias in node.names:
                    yield node.lineno, node.module, alias.name
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("agentframe_core."):
                    yield node.lineno, alias.name, "*"


def attribute_uses(tree: ast.AST) -> Iterator[tuple[int, str, str]]:
    """`agentframe_core.X` and `agentframe_core.testing.X` attribute reads."""
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "agentframe_core"
        ):
            yield node.lineno, "agentframe_core", node.attr


def violations(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    found = []
    for line, module, name in [*kernel_imports(tree), *attribute_uses(tree)]:
        if name in SURFACE.get(module, set()):
            continue
        if module == "agentframe_core" and name in {"testing", "cli", "__version__"}:
            continue
        found.append(f"{path.relative_to(ROOT)}:{line}: {module}.{name} is not public")
    return found


def test_in_repo_plugins_import_only_the_public_surface() -> None:
    files = list(plugin_files())
    assert len(files) > 20, "the scan found no plugin sources: wrong root?"
    problems = [problem for path in files for problem in violations(path)]
    assert not problems, "\n".join(problems)


def test_the_scan_catches_an_internal_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "from agentframe_core.assembly.config import load_config\n"
        "from agentframe_core import Session, not_a_public_name\n"
        "import agentframe_core.engine.session\n"
        "from agentframe_core.testing.conformance.store import StoreConformance\n"
    )
    tree = ast.parse(bad.read_text())
    flagged = [
        (module, name)
        for _, module, name in kernel_imports(tree)
        if name not in SURFACE.get(module, set())
    ]
    assert flagged == [
        ("agentframe_core.assembly.config", "load_config"),
        ("agentframe_core", "not_a_public_name"),
        ("agentframe_core.engine.session", "*"),
        ("agentframe_core.testing.conformance.store", "StoreConformance"),
    ]


@pytest.mark.parametrize("module", sorted(SURFACE))
def test_every_public_name_resolves(module: str) -> None:
    loaded = importlib.import_module(module)
    for name in SURFACE[module]:
        assert getattr(loaded, name) is not None, f"{module}.{name}"


def test_the_lazy_table_and_all_agree() -> None:
    """`__all__` (what tools see) and the lazy table (what runs) list the same names, in the
    same grouped order, and the type-checking imports name each once."""
    source = Path(agentframe_core.__file__).read_text()
    tree = ast.parse(source)
    checked = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.If)
        for child in node.body
        if isinstance(child, ast.ImportFrom)
        for alias in child.names
    }
    lazy = list(agentframe_core._LAZY)
    assert agentframe_core.__all__ == lazy
    assert checked == set(lazy)
