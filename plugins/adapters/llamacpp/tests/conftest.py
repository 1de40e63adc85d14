from __future__ import annotations

import os

import pytest
from agentframe_llamacpp import LlamaRuntime
from agentframe_llamacpp.options import KEEP_ALIVE_ENV
from agentframe_llamacpp.testing import shared_runtime

# Run from this folder, pytest does not see the repository's conftest.py: the same setting,
# so that the servers of the tests' `agentframe` subprocesses stop when those exit.
os.environ.setdefault(KEEP_ALIVE_ENV, "0")


@pytest.fixture(scope="session")
def llama_runtime() -> LlamaRuntime:
    """The real llama-server with SmolLM2, shared by the whole test session."""
    return shared_runtime()
