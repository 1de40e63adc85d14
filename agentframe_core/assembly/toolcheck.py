"""Two tool dispatchers offering one tool name: a config error, found by `config check`.

The loop can only give a model one tool per name (the first dispatcher's wins, with a warning
at run time), so a clash is a mistake in the config. Tool names are only known once the
dispatchers are built and asked, which `config check` does with no model and an in-memory
store; dispatchers holding resources are closed again.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from ..contract.configtypes import Config, PartConfig
from ..contract.errors import AgentframeError, ConfigIssue
from ..contract.llm import Capabilities, Completion, CompletionRequest
from ..contract.protocols import RunContext, Stack, ToolDispatcher
from ..contract.tools import Tool
from ..parts.memorystore import MemoryStore
from ..parts.verbatim import VerbatimBuilder

__all__ = ["name_clashes", "offered_tools", "tool_name_clashes"]


async def tool_name_clashes(config: Config) -> list[ConfigIssue]:
    """One issue per tool name that a second (or later) dispatcher offers again, naming both
    parts of the config."""
    return name_clashes(await offered_tools(config))


def name_clashes(offered: list[tuple[PartConfig, Tool]]) -> list[ConfigIssue]:
    """The clashes among the tools `offered_tools` listed."""
    owner: dict[str, PartConfig] = {}
    issues = []
    for part, tool in offered:
        first = owner.setdefault(tool.name, part)
        if first is not part:
            issues.append(part.issue(_clash(tool.name, first, part)))
    return issues


async def offered_tools(config: Config) -> list[tuple[PartConfig, Tool]]:
    """Every tool of every dispatcher of `config`, with the part offering it."""
    built: list[tuple[PartConfig, ToolDispatcher]] = []
    try:
        for part in config.tools:
            built.append((part, part.build()))
        stack = Stack(_NoModel(), MemoryStore(), VerbatimBuilder(), tools=[d for _, d in built])
        ctx = RunContext("agentframe-config-check", stack)
        return [(part, tool) for part, d in built for tool in await d.tools(ctx)]
    finally:
        for _, dispatcher in reversed(built):
            close = getattr(dispatcher, "aclose", None)
            if close is not None:
                with contextlib.suppress(Exception):
                    await close()


def _clash(name: str, first: PartConfig, second: PartConfig) -> str:
    where = f", line {first.line}" if first.line is not None else ""
    return (
        f"tool {name!r} is offered by both {first.path} ({first.name!r}{where}) and "
        f"{second.path} ({second.name!r}): a model can only be given one of them; rename or "
        "leave out one"
    )


class _NoModel:
    """The adapter of the check's stack: listing tools never needs a model."""

    capabilities = Capabilities()

    async def complete(self, request: CompletionRequest) -> Completion:
        raise AgentframeError("no model is called while the config is checked")

    async def stream(self, request: CompletionRequest) -> AsyncIterator[str | Completion]:
        raise AgentframeError("no model is called while the config is checked")
        yield ""  # pragma: no cover - makes this an async generator
