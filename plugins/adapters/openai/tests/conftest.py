from __future__ import annotations

from collections.abc import Iterator

import pytest
from agentframe_adapter_openai.testing import ScriptedServer


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer(models=("scripted-model", "other-model")) as running:
        yield running


@pytest.fixture(scope="session")
def llama_url() -> str:
    """`/v1` of the real llama-server (SmolLM2) the llamacpp plugin runs for the tests."""
    try:
        from agentframe_llamacpp.testing import shared_runtime, unavailable
    except ImportError:
        pytest.skip("agentframe-llamacpp is not installed: it runs the real llama-server")
    runtime = shared_runtime()
    server = runtime.servers.get("smollm2")
    if server is None:
        unavailable("the shared llama-server did not start")
    return f"{server.base_url}/v1"
