from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from agentframe_adapter_anthropic.testing import ScriptedServer


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer(models=("scripted-model", "other-model")) as running:
        yield running


@pytest.fixture(scope="session")
def llama_url() -> str:
    """`/v1` of the real llama-server (SmolLM2) the llamacpp plugin runs for the tests; it
    serves the Messages API at `/v1/messages`."""
    try:
        from agentframe_llamacpp.testing import shared_runtime, unavailable
    except ImportError:
        pytest.skip("agentframe-llamacpp is not installed: it runs the real llama-server")
    runtime = shared_runtime()
    server = runtime.servers.get("smollm2")
    if server is None:
        unavailable("the shared llama-server did not start")
    return f"{server.base_url}/v1"


@pytest.fixture(scope="module")
def llama_tools_url(llama_url: str) -> Iterator[str]:
    """`/v1` of a llama-server for the same model with llamacpp's bundled ChatML-with-tools
    template (`--jinja --chat-template-file`), so `tools`, `tool_use` and `tool_result` reach
    the prompt; stopped afterwards."""
    import asyncio

    from agentframe_llamacpp import LlamaRuntime, ModelOptions
    from agentframe_llamacpp.testing import options_for_tests, shared_runtime

    shared = shared_runtime()
    found = shared.store.locate("smollm2", shared.options.models["smollm2"])
    assert found is not None
    model = ModelOptions(path=str(found.path), ctx_size=2048, chat_template="chatml-tools")
    with tempfile.TemporaryDirectory() as state:
        runtime = LlamaRuntime(options_for_tests(models={"tools": model}), state_dir=Path(state))
        try:
            url = asyncio.run(runtime.ensure("tools"))
            yield f"{url}/v1"
        finally:
            runtime.stop_owned()
