"""What the adapter learns from its running server for context builders: the context of one
request (`/props`), and exact token counts (`/tokenize`)."""

from __future__ import annotations

from agentframe_llamacpp import LlamaCppAdapter, LlamaRuntime

from agentframe_core import CompletionRequest, Message


async def test_the_window_is_the_servers_slot_context(llama_runtime: LlamaRuntime) -> None:
    adapter = LlamaCppAdapter(llama_runtime.options, llama_runtime)
    try:
        # ctx_size 4096 over 2 parallel slots: 2048 a request until the server says more
        assert adapter.capabilities.context_window == 2048
        window = await adapter.fetch_context_window()
        assert window is not None and 2048 <= window <= 4096
        assert adapter.capabilities.context_window == window
    finally:
        await adapter.aclose()


async def test_token_counts_are_the_models_own(llama_runtime: LlamaRuntime) -> None:
    adapter = LlamaCppAdapter(llama_runtime.options, llama_runtime)
    text = "The quick brown fox jumps over the lazy dog. " * 20
    try:
        short, long, empty = await adapter.count_tokens(["Hello", text, ""])
        assert 1 <= short <= 2 and empty == 0
        reply = await adapter.complete(CompletionRequest([Message("user", text)], max_tokens=1))
        # the prompt is the text plus the chat template's few tokens around it
        assert long <= reply.usage.prompt_tokens <= long + 40
    finally:
        await adapter.aclose()
