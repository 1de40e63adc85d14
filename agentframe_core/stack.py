"""A Stack: one part per extension point, built from a validated Config."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .config import Config, Limits
from .protocols import ContextBuilder, LLMAdapter, Retriever, Store, ToolDispatcher

if TYPE_CHECKING:
    import pluggy

    from .plugins import PluginHost

__all__ = ["Stack", "build_stack"]


@dataclass(slots=True)
class Stack:
    adapter: LLMAdapter
    store: Store
    context: ContextBuilder
    retrievers: list[Retriever] = field(default_factory=list)
    tools: list[ToolDispatcher] = field(default_factory=list)
    limits: Limits = field(default_factory=Limits)
    #: The runtime hooks (`agentframe_gate_tool_call`, ...) of the plugins that are loaded.
    hooks: pluggy.HookRelay | None = None
    config: Config | None = None

    def parts(self) -> list[Any]:
        return [self.adapter, self.store, self.context, *self.retrievers, *self.tools]

    async def aclose(self) -> None:
        """Close every part that holds resources (those that define `aclose`)."""
        for part in reversed(self.parts()):
            close = getattr(part, "aclose", None)
            if close is not None:
                with contextlib.suppress(Exception):
                    await close()

    async def __aenter__(self) -> Stack:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def build_stack(config: Config, host: PluginHost) -> Stack:
    """Instantiate every part the config selects (agent loaders are not part of a stack:
    they are consulted once, when a session picks its agent)."""
    host.load_runtime_hooks()
    return Stack(
        adapter=config.adapter.build(),
        store=config.store.build(),
        context=config.context.build(),
        retrievers=[part.build() for part in config.retrievers],
        tools=[part.build() for part in config.tools],
        limits=config.limits,
        hooks=host.pm.hook,
        config=config,
    )
