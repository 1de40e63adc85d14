"""The kernel's shape, checked from its source: short functions, and every module in a layer of
the import-linter contract (so `lint-imports` cannot pass by not knowing a module)."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import agentframe_core

KERNEL = Path(agentframe_core.__file__).resolve().parent
ROOT = KERNEL.parent
MAX_LINES = 60


def kernel_modules() -> list[Path]:
    return sorted(KERNEL.rglob("*.py"))


def long_functions(path: Path, root: Path = ROOT) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            length = (node.end_lineno or node.lineno) - first + 1
            if length > MAX_LINES:
                where = path.relative_to(root)
                found.append(f"{where}:{node.lineno} {node.name}() is {length} lines")
    return found


def test_every_kernel_function_is_at_most_60_lines() -> None:
    problems = [problem for path in kernel_modules() for problem in long_functions(path)]
    assert not problems, "\n".join(problems)


def test_the_length_check_measures_decorators_and_bodies(tmp_path: Path) -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(59))
    sample = tmp_path / "sample.py"
    sample.write_text(f"@staticmethod\ndef long():\n{body}\n\ndef short():\n    pass\n")
    assert long_functions(sample, tmp_path) == ["sample.py:2 long() is 61 lines"]


def layer_modules() -> set[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    layers = next(c for c in config["contracts"] if c["type"] == "layers")["layers"]
    names = set()
    for layer in layers:
        for name in layer.replace("\\", " ").replace("|", ":").split(":"):
            names.add(name.strip())
    return names


def test_every_kernel_module_is_in_a_layer() -> None:
    layers = layer_modules()
    unplaced = []
    for path in kernel_modules():
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts == ("agentframe_core", "__init__"):
            continue  # the public surface: lazy re-exports of the layers' names
        prefixes = {".".join(parts[:i]) for i in range(2, len(parts) + 1)}
        if not prefixes & layers:
            unplaced.append(".".join(parts))
    assert not unplaced, f"not in any layer of [tool.importlinter]: {unplaced}"


def test_the_extension_points_agree_with_the_hooks_the_stack_and_the_config() -> None:
    """`extensions.EXTENSION_POINTS` is the one declaration; what cannot be derived from it
    (a hookspec is a function, `Stack` and `Config` are typed dataclasses) must match it."""
    import dataclasses
    import inspect

    from agentframe_core import Config, Kind, Stack
    from agentframe_core.contract import hookspecs
    from agentframe_core.contract.extensions import EXTENSION_POINTS, STACK_POINTS

    assert [point.kind for point in EXTENSION_POINTS] == list(Kind)
    registration_hooks = {
        name
        for name, function in inspect.getmembers(hookspecs, inspect.isfunction)
        if hasattr(function, "agentframe_spec")
        and list(inspect.signature(function).parameters) == ["register"]
    }
    assert registration_hooks == {point.hook for point in EXTENSION_POINTS}
    for point in EXTENSION_POINTS:
        assert getattr(point.protocol, "_is_runtime_protocol", False), point.protocol
    in_stack = {point.kind.value for point in STACK_POINTS}
    stack_fields = {f.name for f in dataclasses.fields(Stack)} - {
        "limits",
        "hooks",
        "config",
        "agents",
    }
    config_fields = {f.name for f in dataclasses.fields(Config)}
    config_fields -= {"file", "profile", "agents", "limits", "data"}
    assert stack_fields == in_stack == config_fields
