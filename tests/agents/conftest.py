"""Every agents test runs with an empty home folder and inside a throwaway repository."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("AGENTFRAME_CONFIG", raising=False)
    monkeypatch.delenv("AGENTFRAME_PROFILE", raising=False)
    return home


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A repository root (it has `.git`)."""
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    return root


@pytest.fixture
def cwd(project: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory two levels below the repository root, and the process's cwd."""
    here = project / "pkg" / "sub"
    here.mkdir(parents=True)
    monkeypatch.chdir(here)
    return here


WriteAgent = Callable[..., Path]


@pytest.fixture
def write_agent() -> WriteAgent:
    """`write_agent(folder, name, body=..., file=..., **keys)` writes `folder/<file or
    name>.md` with `name`, a description and the extra keys (YAML values as given)."""

    def write_agent(
        folder: Path, name: str, *, body: str = "", file: str | None = None, **keys: str
    ) -> Path:
        lines = ["---", f"name: {name}", f"description: The {name} agent"]
        lines += [f"{key}: {value}" for key, value in keys.items()]
        text = "\n".join([*lines, "---", body or f"You are {name}.", ""])
        path = folder / (file or f"{name}.md")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    return write_agent
