"""mypy checks every package: a plugin package left out of the config fails here."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _packages() -> set[str]:
    found = set()
    for area in ("plugins", "contrib", "docs/examples"):
        for init in (ROOT / area).rglob("__init__.py"):
            package = init.parent
            top_level = not (package.parent / "__init__.py").exists()
            ours = package.name.startswith("agentframe_") and "tests" not in package.parts
            if top_level and ours:
                found.add(package.relative_to(ROOT).as_posix())
    return found


def test_every_plugin_package_is_type_checked() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    checked = set(config["files"])
    assert config["strict"] is True
    assert "agentframe_core" in checked
    missing = sorted(_packages() - checked)
    assert not missing, f"add these packages to [tool.mypy] files in pyproject.toml: {missing}"
