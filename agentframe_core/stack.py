"""Building a Stack from a validated Config: one part per extension point, and the runtime hooks."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .protocols import Stack

if TYPE_CHECKING:
    from .configtypes import Config
    from .plugins import PluginHost

__all__ = ["build_stack"]


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
