"""The default local model (SmolLM2-135M on a real llama-server) answers through
/v1/chat/completions, driven by the openai client, plain and streamed. Skips without
llama-server or the model; fails instead with AGENTFRAME_REQUIRE_LLAMA=1."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from agentframe_serve import Keys, ServeSettings, build_app
from servekit import free_port, write_project

from agentframe_core import MemoryStore, PluginHost, Stack, VerbatimBuilder, find_agents


@pytest.fixture(scope="session")
def llama_runtime() -> Any:
    from agentframe_llamacpp.testing import shared_runtime

    return shared_runtime()


async def test_the_local_model_answers_through_chat_completions(
    tmp_path: Path, llama_runtime: Any
) -> None:
    from agentframe_llamacpp import LlamaCppAdapter
    from openai import AsyncOpenAI

    write_project(tmp_path, [])
    agents = find_agents(PluginHost(), None, tmp_path).definitions
    stack = Stack(
        adapter=LlamaCppAdapter(llama_runtime.options, llama_runtime),
        store=MemoryStore(),
        context=VerbatimBuilder(),
    )
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    app = build_app(stack, agents, tmp_path, ServeSettings(), Keys(), loopback=True, base_url=url)
    server = uvicorn.Server(uvicorn.Config(app, port=port, log_config=None, lifespan="off"))
    task = asyncio.create_task(server.serve())
    client = AsyncOpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="unused", max_retries=0)
    try:
        while not server.started:
            await asyncio.sleep(0.01)
        question = [{"role": "user", "content": "What is the capital of France? One word."}]
        answer = await client.chat.completions.create(model="helper", messages=question)
        choice = answer.choices[0]
        assert choice.finish_reason == "stop" and (choice.message.content or "").strip()
        assert answer.usage is not None and answer.usage.prompt_tokens > 0
        assert answer.usage.completion_tokens > 0
        stream = await client.chat.completions.create(
            model="helper",
            messages=[
                *question,
                {"role": "assistant", "content": choice.message.content},
                {"role": "user", "content": "And of Italy?"},
            ],
            stream=True,
        )
        chunks = [c async for c in stream]
        text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
        assert text.strip() and chunks[-1].choices[0].finish_reason == "stop"
        every = await stack.store.sessions()
        sessions = [s for s in every if not s.is_record]
        assert len(sessions) == 1 and sessions[0].entries == 4  # one conversation, stored once
        records = [s.id for s in every if s.id.startswith("~serve.conversation.")]
        assert len(records) == 1  # its digest, the earlier one dropped
    finally:
        await client.close()
        server.should_exit = True
        await asyncio.wait_for(task, 30)
        await stack.aclose()
