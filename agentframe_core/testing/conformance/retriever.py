"""RetrieverConformance: what every retriever must guarantee.

Subclass it and provide two fixtures: `retriever` (your part, already holding its corpus) and
`query` (a query that finds something in that corpus). Each call gets `ctx`, a `RunContext` of
session "conformance" on a stack with an in-memory store and no model.

The rules, each checked for the given query, then for any text and any budget (hypothesis):

- `retrieve` returns a list of `Snippet`s, each with non-empty `text`, a `str` `source` and a
  finite `float` `score`; it never raises on any query text (empty, control characters...);
- the budget is the total: the snippets' `text`s together hold at most 4 * `budget_tokens`
  characters (the loop's estimate of four characters a token; `source` is not counted), so a
  budget of 0 returns nothing;
- best first: scores never increase along the list. Scores order the snippets of one call
  only: they are not comparable across queries or retrievers;
- the given `query` finds at least one snippet with a budget of 2,000 tokens.
"""

from __future__ import annotations

import asyncio
import math
from typing import Any, ClassVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentframe_core.contract.protocols import Retriever, Snippet

from ._stack import run_context
from ._verdicts import require

__all__ = ["RetrieverConformance"]

#: What the kit holds every retriever to: a retriever without it fails, told what to add.
REQUIRED = {"Retriever": "`retrieve(query, *, ctx, budget_tokens)`"}
#: Nothing is optional: every retriever is held to every rule.
OPTIONAL: dict[str, str] = {}

#: Characters a budget of one token allows.
CHARS_PER_TOKEN = 4

QUERIES = st.text(st.characters(exclude_categories=["Cs"]), max_size=60) | st.sampled_from(
    ["", " ", "\x00", "☃ \n\t", "*", '"', "AND OR NOT", "a" * 500]
)


def check_snippets(found: Any, budget_tokens: int) -> None:
    """The rules every answer obeys, whatever the query."""
    assert isinstance(found, list), f"retrieve() returned {type(found).__name__}, not a list"
    for snippet in found:
        assert isinstance(snippet, Snippet), f"not a Snippet: {snippet!r}"
        assert isinstance(snippet.text, str) and snippet.text, (
            f"a snippet without text: {snippet!r}"
        )
        assert isinstance(snippet.source, str), f"source is not a str: {snippet!r}"
        assert isinstance(snippet.score, float | int) and math.isfinite(snippet.score), (
            f"score is not a finite number: {snippet!r}"
        )
    chars = sum(len(s.text) for s in found)
    allowed = CHARS_PER_TOKEN * budget_tokens
    assert chars <= allowed, (
        f"{len(found)} snippet(s) hold {chars} characters; a budget of {budget_tokens} tokens "
        f"allows {allowed} in total"
    )
    scores = [s.score for s in found]
    assert scores == sorted(scores, reverse=True), f"not best first: scores {scores}"


class RetrieverConformance:
    """Subclass and provide the `retriever` and `query` fixtures; see the module docstring."""

    #: Read-only: the capabilities the kit requires and the optional ones, with what each is.
    required: ClassVar[dict[str, str]] = REQUIRED
    optional: ClassVar[dict[str, str]] = OPTIONAL

    #: Examples of the property test; raise it locally when hunting a bug.
    max_examples: ClassVar[int] = 40

    @pytest.fixture
    def retriever(self) -> Retriever:
        raise NotImplementedError("provide a `retriever` fixture: your part, with its corpus")

    @pytest.fixture
    def query(self) -> str:
        raise NotImplementedError("provide a `query` fixture: text that finds something")

    async def test_is_a_retriever(self, retriever: Any) -> None:
        require(retriever, Retriever, role="retriever")

    async def test_finds_something(self, retriever: Retriever, query: str) -> None:
        found = await retriever.retrieve(query, ctx=run_context(), budget_tokens=2_000)
        check_snippets(found, 2_000)
        assert found, f"the `query` fixture {query!r} found nothing with a budget of 2000"

    @pytest.mark.parametrize("budget", [0, 1, 10, 50, 400])
    async def test_respects_the_budget(self, retriever: Retriever, query: str, budget: int) -> None:
        found = await retriever.retrieve(query, ctx=run_context(), budget_tokens=budget)
        check_snippets(found, budget)
        if budget == 0:
            assert found == [], f"a budget of 0 returned {found!r}"

    @pytest.mark.parametrize("nonsense", ["", "zqxjvk wpfhgy", "\x00 ☃ \n"])
    async def test_any_query_gives_well_formed_snippets(
        self, retriever: Retriever, nonsense: str
    ) -> None:
        found = await retriever.retrieve(nonsense, ctx=run_context(), budget_tokens=500)
        check_snippets(found, 500)

    async def test_property_any_text_any_budget(self, retriever: Retriever, query: str) -> None:
        """For any query (also the fixture's with any text around it) and any budget, the
        answer is well-formed, within the budget and best first. Hypothesis runs in a worker
        thread and drives the retriever on the test's loop, so `max_examples` is the kit
        subclass's own."""
        loop = asyncio.get_running_loop()

        @settings(
            max_examples=self.max_examples,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow],
        )
        @given(text=QUERIES, budget=st.integers(0, 3_000), with_query=st.booleans())
        def answers(text: str, budget: int, with_query: bool) -> None:
            asked = f"{text} {query}" if with_query else text
            call = retriever.retrieve(asked, ctx=run_context(), budget_tokens=budget)
            found = asyncio.run_coroutine_threadsafe(call, loop).result(60)
            check_snippets(found, budget)

        await asyncio.to_thread(answers)
