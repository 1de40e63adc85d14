"""Registers the `openai` adapter."""

from __future__ import annotations

from typing import Any

from agentframe_core import Register, hookimpl

from .options import OpenAIOptions


def _build(options: OpenAIOptions) -> Any:
    from .adapter import OpenAIAdapter

    return OpenAIAdapter(options)


@hookimpl
def agentframe_adapters(register: Register) -> None:
    register("openai", _build, options=OpenAIOptions)
