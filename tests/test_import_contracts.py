"""Every package held to the import rules: the import-linter contracts ([tool.importlinter] in
pyproject.toml, checked by `lint-imports`) name each package mypy checks ([tool.mypy] files),
so a new plugin cannot be left out of them, and `lint-imports` cannot pass by not knowing it."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
KERNEL = "agentframe_core"


def tool_config() -> dict[str, Any]:
    tool: dict[str, Any] = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]
    return tool


def plugin_packages(tool: dict[str, Any]) -> list[str]:
    """The plugin packages: every package folder of mypy's `files` but the kernel."""
    return [Path(folder).name for folder in tool["mypy"]["files"] if Path(folder).name != KERNEL]


def missing_contracts(tool: dict[str, Any]) -> list[str]:
    """What the import-linter config lacks for each plugin package: a root package, a place
    among the ancestors of an acyclic contract (no import cycle between its modules), and a
    protected contract keeping its modules its own (other packages import the package)."""
    linter = tool["importlinter"]
    contracts = linter["contracts"]
    acyclic = {a for c in contracts if c["type"] == "acyclic_siblings" for a in c["ancestors"]}
    private = {
        c["allowed_importers"][0]
        for c in contracts
        if c["type"] == "protected"
        and len(c["allowed_importers"]) == 1
        and c["protected_modules"] == [f"{c['allowed_importers'][0]}.*"]
    }
    problems = []
    for package in plugin_packages(tool):
        if package not in linter["root_packages"]:
            problems.append(f"{package}: not in [tool.importlinter] root_packages")
        if package not in acyclic:
            problems.append(f"{package}: not in the ancestors of an acyclic_siblings contract")
        if package not in private:
            problems.append(
                f'{package}: no protected contract: protected_modules = ["{package}.*"], '
                f'allowed_importers = ["{package}"]'
            )
    return problems


def test_every_plugin_package_has_its_import_contracts() -> None:
    tool = tool_config()
    assert len(plugin_packages(tool)) > 15, "mypy's files name no plugin packages: wrong file?"
    problems = missing_contracts(tool)
    assert not problems, "\n".join(problems)


def test_the_kernel_imports_no_plugin() -> None:
    tool = tool_config()
    forbidding = [
        c
        for c in tool["importlinter"]["contracts"]
        if c["type"] == "forbidden" and c["source_modules"] == [KERNEL]
    ]
    assert forbidding, "no forbidden contract with the kernel as its source"
    left_out = set(plugin_packages(tool)) - set(forbidding[0]["forbidden_modules"])
    assert not left_out, f"the kernel may import these plugins: {sorted(left_out)}"


@pytest.mark.parametrize("contract", ["root package", "acyclic", "protected"])
def test_a_plugin_without_a_contract_is_found(contract: str) -> None:
    """The check above fails for a plugin added to mypy's files and not to the contracts,
    and for one whose contract is taken away."""
    tool = tool_config()
    package = plugin_packages(tool)[0]
    linter = tool["importlinter"]
    if contract == "root package":
        linter["root_packages"].remove(package)
    elif contract == "acyclic":
        for c in linter["contracts"]:
            if c["type"] == "acyclic_siblings" and package in c["ancestors"]:
                c["ancestors"].remove(package)
    else:
        linter["contracts"] = [
            c for c in linter["contracts"] if c.get("allowed_importers") != [package]
        ]
    assert [p for p in missing_contracts(tool) if p.startswith(f"{package}:")]
    tool["mypy"]["files"].append("contrib/newcomer/agentframe_newcomer")
    assert [p for p in missing_contracts(tool) if p.startswith("agentframe_newcomer:")]
