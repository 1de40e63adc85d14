"""Registers the `anthropic` adapter."""

from __future__ import annotations

from typing import Any

from agentframe_core import Register, hookimpl

from .options import AnthropicOptions


def _build(options: AnthropicOptions) -> Any:
    from .adapter import AnthropicAdapter

    return AnthropicAdapter(options)


@hookimpl
def agentframe_adapters(register: Register) -> None:
    register("anthropic", _build, options=AnthropicOptions)
