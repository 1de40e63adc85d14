from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from agentframe_memory.bank import MemoryBank

with contextlib.suppress(ImportError):  # the real-model tests need agentframe-llamacpp
    from agentframe_llamacpp.testing import llama_runtime  # noqa: F401 (a fixture)

FACTS = [
    (
        "Favourite editor",
        "The user edits code in Neovim with the LazyVim setup.",
        "preferences",
        ("editor",),
    ),
    (
        "Deploy target",
        "Production runs on a Hetzner server in Falkenstein.\nDeploys go through Ansible.",
        "project",
        ("ops",),
    ),
    ("Coffee order", "The user drinks a flat white with oat milk, no sugar.", "personal", ()),
    (
        "Test command",
        "Run the suite with `pytest -x -q`; the slow tests need the llama server.",
        "project",
        ("testing",),
    ),
    ("Release day", "Releases are cut on Thursdays after the team sync.", "project", ("process",)),
]


@pytest.fixture
def facts() -> list[tuple[str, str, str, tuple[str, ...]]]:
    return list(FACTS)


@pytest.fixture
def bank(tmp_path: Path) -> MemoryBank:
    bank = MemoryBank(tmp_path / "memory" / "user")
    for title, content, category, tags in FACTS:
        bank.remember(title, content, category, tags)
    yield bank
    bank.close()
