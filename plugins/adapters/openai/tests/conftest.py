from __future__ import annotations

from collections.abc import Iterator

import pytest
from agentframe_adapter_openai.testing import ScriptedServer


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer(models=("scripted-model", "other-model")) as running:
        yield running


try:
    from agentframe_llamacpp.testing import llama_runtime, llama_tools_url, llama_url  # noqa: F401
except ImportError:  # the real-server tests skip without the plugin that runs llama-server

    @pytest.fixture(scope="session")
    def llama_url() -> str:
        pytest.skip("agentframe-llamacpp is not installed: it runs the real llama-server")

    @pytest.fixture(scope="session")
    def llama_tools_url(llama_url: str) -> str:
        return llama_url
