"""The three stages: BM25 candidates, the model's constrained choice, the budgeted load; and
hybrid mode with and without embeddings."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

import pytest
from agentframe_memory.bank import MemoryBank
from agentframe_memory.budget import cut_at_line, render
from agentframe_memory.options import MemoryOptions
from agentframe_memory.retriever import MemoryRetriever

from agentframe_core import MemoryStore, RunContext, Stack, VerbatimBuilder
from agentframe_core.testing import ScriptedAdapter


def context(adapter: object) -> RunContext:
    return RunContext("s", Stack(adapter=adapter, store=MemoryStore(), context=VerbatimBuilder()))  # type: ignore[arg-type]


@pytest.fixture
def options(tmp_path: Path, facts: list) -> MemoryOptions:
    options = MemoryOptions(folder=tmp_path / "mem")
    bank = MemoryBank(options.scope_folder)
    for title, content, category, tags in facts:
        bank.remember(title, content, category, tags)
    for n in range(6):  # several memories about servers, so candidates outgrow small budgets
        bank.remember(f"Server {n}", f"Server {n} runs the {n}th production service.\n" * 3, "ops")
    bank.close()
    return options


async def test_candidates_that_fit_skip_the_model(options: MemoryOptions) -> None:
    adapter = ScriptedAdapter([])  # any model call would fail the script
    found = await MemoryRetriever(options).retrieve(
        "how do deploys happen?", ctx=context(adapter), budget_tokens=5_000
    )
    assert adapter.requests == [] and found
    assert found[0].source == "memory:project/deploy-target"


async def test_the_model_chooses_through_a_constrained_reply(options: MemoryOptions) -> None:
    retriever = MemoryRetriever(options)
    ranked = retriever._candidates("production server")
    pick = next(i for i, (m, _) in enumerate(ranked, 1) if m.id == "ops/server-3")
    adapter = ScriptedAdapter([json.dumps({"ids": [str(pick)]})], json_schema=True)
    found = await retriever.retrieve("production server", ctx=context(adapter), budget_tokens=60)
    (request,) = adapter.requests
    schema = request.response_schema
    assert schema is not None and schema["properties"]["ids"]["maxItems"] == 5
    assert schema["properties"]["ids"]["items"]["enum"] == [
        str(n) for n in range(1, len(ranked) + 1)
    ]
    assert "Server 3" in request.messages[1].content
    assert [s.source for s in found] == ["memory:ops/server-3"]


async def test_an_unusable_choice_keeps_the_bm25_order(options: MemoryOptions) -> None:
    retriever = MemoryRetriever(options)
    adapter = ScriptedAdapter(["I think number two is nice"])
    found = await retriever.retrieve("production server", ctx=context(adapter), budget_tokens=60)
    ranked = retriever._candidates("production server")
    assert found and found[0].source == f"memory:{ranked[0][0].id}"


async def test_selection_can_be_switched_off(options: MemoryOptions) -> None:
    retriever = MemoryRetriever(options.model_copy(update={"select": False}))
    adapter = ScriptedAdapter([])
    found = await retriever.retrieve("production server", ctx=context(adapter), budget_tokens=60)
    assert adapter.requests == [] and found


async def test_the_budget_is_filled_in_rank_order_and_cut_at_a_line(options: MemoryOptions) -> None:
    retriever = MemoryRetriever(options.model_copy(update={"select": False}))
    ranked = retriever._candidates("production server")
    first = len(render(ranked[0][0]))
    budget = (first + 50) // 4
    found = await retriever.retrieve("production server", ctx=context(None), budget_tokens=budget)
    assert [s.source for s in found] == [f"memory:{m.id}" for m, _ in ranked[: len(found)]]
    assert sum(len(s.text) for s in found) <= budget * 4
    last = found[-1].text
    assert render(ranked[len(found) - 1][0]).startswith(last)
    full_lines = render(ranked[len(found) - 1][0]).split("\n")
    assert last.split("\n")[-1] in full_lines  # whole lines only


def test_cut_at_line() -> None:
    assert cut_at_line("one\ntwo\nthree", 9) == "one\ntwo"
    assert cut_at_line("one\ntwo", 100) == "one\ntwo"
    assert cut_at_line("a very long first line", 5) == ""


class Embedder(ScriptedAdapter):
    """Embeds by a fixed vocabulary: a stand-in for an embeddings endpoint."""

    VOCAB = ["coffee", "drink", "milk", "server", "deploy", "editor"]

    def __init__(self) -> None:
        super().__init__([])
        self.calls = 0

    async def embed(self, texts: list[str]) -> list[list[float]]:
        self.calls += 1
        synonyms = {"beverage": "drink"}
        out = []
        for text in texts:
            words = [synonyms.get(w, w) for w in re.findall(r"\w+", text.lower())]
            out.append([float(sum(w.startswith(v) for w in words)) + 0.01 for v in self.VOCAB])
        return out


async def test_hybrid_fuses_bm25_with_embeddings(options: MemoryOptions) -> None:
    retriever = MemoryRetriever(options.model_copy(update={"mode": "hybrid", "select": False}))
    adapter = Embedder()
    # "beverage" matches no memory's words: BM25 alone finds nothing, the vectors do
    found = await retriever.retrieve("which beverage?", ctx=context(adapter), budget_tokens=500)
    assert found and found[0].source == "memory:personal/coffee-order"
    scores = [s.score for s in found]
    assert scores == sorted(scores, reverse=True)
    await retriever.retrieve("which beverage?", ctx=context(adapter), budget_tokens=500)
    assert adapter.calls == 2  # the second query embeds only the query: memory vectors are kept


async def test_hybrid_without_embeddings_is_bm25_and_says_so_once(
    options: MemoryOptions, caplog: pytest.LogCaptureFixture
) -> None:
    retriever = MemoryRetriever(options.model_copy(update={"mode": "hybrid", "select": False}))
    plain = MemoryRetriever(options.model_copy(update={"select": False}))
    with caplog.at_level(logging.WARNING, "agentframe.memory"):
        for _ in range(3):
            found = await retriever.retrieve(
                "coffee", ctx=context(ScriptedAdapter()), budget_tokens=500
            )
    expected = await plain.retrieve("coffee", ctx=context(ScriptedAdapter()), budget_tokens=500)
    assert found == expected
    notices = [r for r in caplog.records if "offers no embeddings" in r.getMessage()]
    assert len(notices) == 1
