from __future__ import annotations

import pytest
from agentframe_llamacpp import LlamaRuntime
from agentframe_llamacpp.testing import shared_runtime


@pytest.fixture(scope="session")
def llama_runtime() -> LlamaRuntime:
    """The real llama-server with SmolLM2, shared by the whole test session."""
    return shared_runtime()
