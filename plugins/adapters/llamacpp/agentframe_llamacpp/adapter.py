"""`LlamaCppAdapter`: the `openai` adapter pointed at the runtime's llama-server.

What it declares follows `tool_mode`. The default, `constrained`: JSON-schema constrained
decoding and no native tool calling, so the loop renders tools into the prompt and sends the
tool-union schema, which llama-server turns into a grammar, and even SmolLM2-135M returns valid
calls (`bench/tool_modes.py` measures each mode). Every request asks the server to reuse its KV
cache (`cache_prompt`), and the cached prompt tokens it reports come back in `usage`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Sequence

import httpx
from agentframe_adapter_openai import ConnectionFailedError, OpenAIAdapter, OpenAIOptions

from agentframe_core import Capabilities, Completion, CompletionRequest

from .options import LlamaCppOptions
from .props import count_tokens, slot_context
from .runtime import LlamaRuntime

__all__ = ["LlamaCppAdapter"]


class LlamaCppAdapter:
    def __init__(self, options: LlamaCppOptions, runtime: LlamaRuntime | None = None) -> None:
        """`runtime`: share one (its servers are then not stopped by `aclose`)."""
        self.options = options
        self.runtime = runtime or LlamaRuntime(options)
        self._owns_runtime = runtime is None
        self._adapters: dict[str, OpenAIAdapter] = {}
        default = options.models[options.default]
        # Each of `parallel` slots gets its share of ctx_size: a lower bound until the
        # server's /props says (fetch_context_window).
        per_slot = default.ctx_size // (default.parallel or 1) if default.ctx_size else None
        self._capabilities = Capabilities(
            native_tools=options.tool_mode == "native",
            json_schema=options.tool_mode != "text",
            streaming=True,
            context_window=per_slot,
        )
        self._measured = False

    @property
    def capabilities(self) -> Capabilities:
        return self._capabilities

    async def _route(self, request: CompletionRequest) -> tuple[OpenAIAdapter, CompletionRequest]:
        """The adapter for the model the request names (an agent's `model`), server started."""
        name = self.runtime.resolve(request.model)
        url = f"{await self.runtime.ensure(name)}/v1"
        adapter = self._adapters.get(name)
        if adapter is None or adapter.options.base_url != url:
            if adapter is not None:  # the server came back on another port
                await adapter.aclose()
            options = self.options
            adapter = OpenAIAdapter(
                OpenAIOptions(
                    base_url=url,
                    api_key_env=None,
                    timeout=options.timeout,
                    connect_timeout=5.0,
                    max_retries=1,
                    backoff_base=0.2,
                    native_tools=self._capabilities.native_tools,
                    json_schema=self._capabilities.json_schema,
                    temperature=options.temperature,
                    top_p=options.top_p,
                    max_tokens=options.max_tokens,
                    seed=options.seed,
                    extra_body={"cache_prompt": True, **options.extra_body},
                )
            )
            self._adapters[name] = adapter
        return adapter, dataclasses.replace(request, model=name)

    async def complete(self, request: CompletionRequest) -> Completion:
        adapter, routed = await self._route(request)
        try:
            return await adapter.complete(routed)
        except ConnectionFailedError:
            if not await self.runtime.gone(routed.model or ""):
                raise
        # The server died under the request: restart it (with backoff) and ask once more.
        adapter, routed = await self._route(request)
        return await adapter.complete(routed)

    async def stream(self, request: CompletionRequest) -> AsyncIterator[str | Completion]:
        adapter, routed = await self._route(request)
        try:
            # Connection failures surface before the first delta, so a retry repeats nothing.
            stream = adapter.stream(routed)
            first = await anext(stream)
        except ConnectionFailedError:
            if not await self.runtime.gone(routed.model or ""):
                raise
            adapter, routed = await self._route(request)
            stream = adapter.stream(routed)
            first = await anext(stream)
        yield first
        async for item in stream:
            yield item

    async def fetch_context_window(self) -> int | None:
        """The default model's context per request, as its running server reports it
        (starting the server if needed); remembered in `capabilities`."""
        if not self._measured:
            client, root = await self._server()
            measured = await slot_context(client, root)
            if measured is not None:
                self._capabilities = dataclasses.replace(
                    self._capabilities, context_window=measured
                )
            self._measured = True
        return self._capabilities.context_window

    async def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Exact token counts of the default model (llama-server's /tokenize)."""
        client, root = await self._server()
        return await count_tokens(client, root, texts)

    async def _server(self) -> tuple[httpx.AsyncClient, str]:
        """The pooled client and root URL of the default model's server, started."""
        adapter, _ = await self._route(CompletionRequest([]))
        return adapter.client(), adapter.options.base_url.removesuffix("/v1")

    async def aclose(self) -> None:
        for adapter in self._adapters.values():
            await adapter.aclose()
        self._adapters.clear()
        if self._owns_runtime:
            await self.runtime.astop_owned()
