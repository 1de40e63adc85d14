"""The extension points, declared once.

Each row says what a part of that kind must satisfy (its protocol), which hook registers it,
where a config selects it and whether a config selects one part or a list. The plugin host's
registration, config validation, the config's JSON schema and `build_stack` iterate over this
table; `tests/test_kernel_shape.py` checks that the hooks, the `Stack` and the `Config` agree.
"""

from __future__ import annotations

from dataclasses import dataclass

from .registry import Kind

__all__ = ["EXTENSION_POINTS", "STACK_POINTS", "ExtensionPoint"]


@dataclass(frozen=True, slots=True)
class ExtensionPoint:
    kind: Kind
    #: The protocol's name in `agentframe_core.contract.protocols` (see `protocol`).
    protocol_name: str
    #: The registration hook in `hookspecs`.
    hook: str
    #: A config selects a list of parts (`retrievers: [...]`), else exactly one.
    many: bool
    #: Selected in the config and held by the `Stack` under `kind.value`; agent loaders are
    #: not: every installed one is asked once, when a session picks its agent.
    in_stack: bool = True

    @property
    def protocol(self) -> type:
        """The protocol a part must satisfy, imported on first use: the CLI's start-up and
        config validation need only the table's shape, not the data model behind it."""
        from . import protocols

        found: type = getattr(protocols, self.protocol_name)
        return found


EXTENSION_POINTS: tuple[ExtensionPoint, ...] = (
    ExtensionPoint(Kind.ADAPTER, "LLMAdapter", "agentframe_adapters", many=False),
    ExtensionPoint(Kind.STORE, "Store", "agentframe_stores", many=False),
    ExtensionPoint(Kind.CONTEXT, "ContextBuilder", "agentframe_context_builders", many=False),
    ExtensionPoint(Kind.RETRIEVER, "Retriever", "agentframe_retrievers", many=True),
    ExtensionPoint(Kind.TOOLS, "ToolDispatcher", "agentframe_tool_dispatchers", many=True),
    ExtensionPoint(
        Kind.AGENT_LOADER, "AgentLoader", "agentframe_agent_loaders", many=True, in_stack=False
    ),
)

#: The points a config selects parts for, in the order a stack is built.
STACK_POINTS = tuple(point for point in EXTENSION_POINTS if point.in_stack)
