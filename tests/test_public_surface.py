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


def test_scaffolded_plugins_import_only_the_public_surface() -> None:
    """What `agentframe new plugin KIND NAME` writes (agentframe-new) is held to the same rule."""
    scaffold = pytest.importorskip("agentframe_new.scaffold")
    problems = []
    for point in agentframe_core.EXTENSION_POINTS:
        for path, text in scaffold.plugin_files(point, "probe").items():
            if path.suffix == ".py":
                problems += [
                    f"{point.kind.value}: {path}:{line}: {module}.{name} is not public"
                    for line, module, name in kernel_imports(ast.parse(text, str(path)))
                    if name not in SURFACE.get(module, set())
                ]
    assert not problems, "\n".join(problems)


def test_the_import_contract_makes_public_the_same_modules() -> None:
    """`lint-imports` holds the plugin packages to this surface too (its protected contract
    on the kernel), seeing every import whatever its form; this scan adds what it cannot see:
    the names imported, the plugins' tests and scaffolded code. Both call the same modules
    public: the kernel's other top-level modules, and everything below `.testing` and `.cli`,
    are protected."""
    import tomllib

    linter = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    (contract,) = [
        c
        for c in linter["contracts"]
        if c["type"] == "protected" and c["allowed_importers"] == ["agentframe_core"]
    ]
    kernel = Path(agentframe_core.__file__).parent
    children = {
        f"agentframe_core.{path.stem}"
        for path in kernel.iterdir()
        if (path.suffix == ".py" and path.stem != "__init__") or (path / "__init__.py").is_file()
    }
    below_public = {f"{module}.*" for module in SURFACE if module != "agentframe_core"}
    assert set(contract["protected_modules"]) == (children - set(SURFACE)) | below_public


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


def test_the_version_is_the_installed_distributions() -> None:
    """One number, set in pyproject.toml: what a scaffolded plugin pins the kernel to."""
    import tomllib

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert agentframe_core.__version__ == declared


# -- docs/api.md, the exports, and what the kits and the example plugin import -----------------

API_DOC = ROOT / "docs" / "api.md"
KITS = ROOT / "agentframe_core" / "testing" / "conformance"
EXAMPLE = ROOT / "docs" / "examples" / "agentframe-jsonl"
#: Kernel names a kit imports that a plugin never needs, and why.
KIT_INTERNALS = {
    "NO_RESULT": "the stand-in the loop renders for a missing result; the kits look for it",
    "catalog_from_loaders": "the loader kit's catalog of the one loader under test",
    "cli_command": "how `run_cli` starts the CLI; the process kit starts it the same way",
    "cli_env": "`run_cli`'s environment, for the process kit's children",
    "build_store": "how the process kit's churning child builds the store from its block",
}


def documented() -> dict[str, set[str]]:
    """The names in the first column of docs/api.md's tables, by the module their section
    is about (`agentframe_core` unless the heading names `.testing` or `.cli`)."""
    found: dict[str, set[str]] = {module: set() for module in SURFACE}
    module = "agentframe_core"
    for line in API_DOC.read_text().splitlines():
        if line.startswith("## "):
            module = next((m for m in SURFACE if f"`{m}`" in line), "agentframe_core")
        elif line.startswith("| ") and not line.startswith("| name "):
            first = line.split("|")[1]
            found[module] |= {name for name in first.split("`")[1::2] if name.isidentifier()}
    return found


def kernel_names(files: list[Path]) -> dict[str, str]:
    """Every kernel name the modules import (relative imports resolved), and where from."""
    names: dict[str, str] = {}
    for path in files:
        tree = ast.parse(path.read_text(), str(path))
        package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom) or not (node.module or node.level):
                continue
            module = node.module or ""
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, module] if module else base)
            if module.split(".")[0] != "agentframe_core":
                continue
            for alias in node.names:
                names[alias.name] = f"{path.relative_to(ROOT)}:{node.lineno}: {module}"
    return names


def test_api_md_lists_exactly_what_is_exported() -> None:
    """A name a plugin can import but cannot read about, or one the page promises that does
    not exist, fails here."""
    listed = documented()
    for module, exported in SURFACE.items():
        unlisted = sorted(exported - listed[module])
        assert not unlisted, f"exported by {module}, not in docs/api.md: {unlisted}"
        promised = sorted(listed[module] - exported)
        assert not promised, f"in docs/api.md, not exported by {module}: {promised}"


def test_every_kernel_name_the_kits_use_is_public_and_documented() -> None:
    """What a kit checks a part against (a protocol, an error it must raise, a type it must
    return) is importable from the public surface and listed in docs/api.md; the few
    internals a kit uses for its own machinery are named, with why, in KIT_INTERNALS."""
    public = {id(getattr(importlib.import_module(m), n)): n for m in SURFACE for n in SURFACE[m]}
    listed = set().union(*documented().values())
    conformance = "agentframe_core.testing.conformance"
    problems = []
    for name, where in kernel_names(sorted(KITS.glob("*.py"))).items():
        module = where.rsplit(": ", 1)[1]
        if module.startswith(conformance) or name in KIT_INTERNALS:
            continue  # the kits' own modules, or named internals
        value = getattr(importlib.import_module(module), name)
        if id(value) not in public:
            problems.append(f"{where}.{name} is not exported from the public surface")
        elif public[id(value)] not in listed:
            problems.append(f"{where}.{name} is exported but not in docs/api.md")
    assert not problems, "\n".join(problems)
    unused = set(KIT_INTERNALS) - set(kernel_names(sorted(KITS.glob("*.py"))))
    assert not unused, f"KIT_INTERNALS names what no kit imports: {unused}"


def test_the_example_plugin_imports_only_documented_names() -> None:
    files = [p for p in EXAMPLE.rglob("*.py") if ".venv" not in p.parts]
    imported = {
        (module, name)
        for path in files
        for _, module, name in kernel_imports(ast.parse(path.read_text(), str(path)))
    }
    assert imported, "the scan found no kernel import in the example plugin: wrong path?"
    listed = documented()
    missing = sorted(f"{m}.{n}" for m, n in imported if n not in listed.get(m, set()))
    assert not missing, f"the example plugin imports names docs/api.md does not list: {missing}"
