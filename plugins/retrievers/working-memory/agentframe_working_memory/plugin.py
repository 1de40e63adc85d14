"""Registers the `working-memory` retriever."""

from __future__ import annotations

from typing import Any

from agentframe_core import Register, hookimpl

from .options import WorkingMemoryOptions


def _retriever(options: WorkingMemoryOptions) -> Any:
    from .retriever import WorkingMemoryRetriever

    return WorkingMemoryRetriever(options)


@hookimpl
def agentframe_retrievers(register: Register) -> None:
    register("working-memory", _retriever, options=WorkingMemoryOptions)
