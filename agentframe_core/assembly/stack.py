"""Building a Stack from a validated Config: one part per extension point, and the runtime hooks."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..contract.extensions import STACK_POINTS
from ..contract.protocols import Stack

if TYPE_CHECKING:
    from ..contract.configtypes import Config
    from ..contract.definition import AgentDefinition
    from .plugins import PluginHost

__all__ = ["build_stack"]


def build_stack(config: Config, host: PluginHost) -> Stack:
    """Instantiate every part the config selects (agent loaders are not part of a stack:
    they are consulted once, when a session picks its agent)."""
    host.load_runtime_hooks()
    host.pm.hook.agentframe_stack_built(config=config)
    parts: dict[str, Any] = {}
    for point in STACK_POINTS:
        chosen = getattr(config, point.kind.value)
        parts[point.kind.value] = [p.build() for p in chosen] if point.many else chosen.build()

    def agents(cwd: Path) -> list[AgentDefinition]:
        from .catalog import find_agents

        return find_agents(host, config, cwd).definitions

    return Stack(**parts, limits=config.limits, hooks=host.pm.hook, config=config, agents=agents)
