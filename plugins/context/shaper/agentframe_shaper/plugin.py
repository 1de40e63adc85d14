"""Registers the `shaper` context builder and its `load_message` tool."""

from __future__ import annotations

from typing import Any

from agentframe_core import Register, hookimpl

from .loadtool import LoadMessageOptions
from .options import ShaperOptions


def _shaper(options: ShaperOptions) -> Any:
    from .shaper import Shaper

    return Shaper(options)


def _load_message(options: LoadMessageOptions) -> Any:
    from .loadtool import LoadMessageTools

    return LoadMessageTools(options)


@hookimpl
def agentframe_context_builders(register: Register) -> None:
    register("shaper", _shaper, options=ShaperOptions)


@hookimpl
def agentframe_tool_dispatchers(register: Register) -> None:
    register("load_message", _load_message, options=LoadMessageOptions)
