"""Shared fixtures: the sample documents, and the scripted model whose replies are recorded
per step in data/replies.yaml."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from agentframe_core import Capabilities, Completion, CompletionRequest
from agentframe_core.testing import ScriptedAdapter

with contextlib.suppress(ImportError):  # the real-model tests need agentframe-llamacpp
    from agentframe_llamacpp.testing import llama_runtime  # noqa: F401 (a fixture)

DATA = Path(__file__).parent / "data"


class PerStepAdapter:
    """One ScriptedAdapter per step, chosen by the request's `context_label`, as agent mode
    files prompts; `calls` counts the model calls of each step."""

    def __init__(self, replies: dict[str, list[Any]]) -> None:
        self.scripts = {step: ScriptedAdapter(list(items)) for step, items in replies.items()}
        self.calls: dict[str, int] = {}

    @property
    def capabilities(self) -> Capabilities:
        return Capabilities(json_schema=True)

    async def complete(self, request: CompletionRequest) -> Completion:
        step = request.metadata["context_label"]
        self.calls[step] = self.calls.get(step, 0) + 1
        return await self.scripts[step].complete(request)

    async def stream(self, request: CompletionRequest) -> AsyncIterator[str | Completion]:
        yield await self.complete(request)


def recorded_replies() -> dict[str, list[Any]]:
    loaded = yaml.safe_load((DATA / "replies.yaml").read_text())
    assert isinstance(loaded, dict)
    return loaded


def gold_triples() -> set[tuple[str, str, str]]:
    rows = (line.split("\t") for line in (DATA / "gold.tsv").read_text().splitlines())
    return {
        (s.casefold(), p, o.casefold())
        for s, p, o in (r for r in rows if len(r) == 3 and not r[0].startswith("#"))
    }


@pytest.fixture
def docs() -> Path:
    return DATA / "docs"


@pytest.fixture
def scripted() -> Any:
    """A factory: the recorded replies (or `replies`) as a PerStepAdapter."""

    def make(replies: dict[str, list[Any]] | None = None) -> PerStepAdapter:
        return PerStepAdapter(recorded_replies() if replies is None else replies)

    return make


@pytest.fixture
def gold() -> set[tuple[str, str, str]]:
    return gold_triples()
