"""OpenTelemetry for agentframe: the SDK and exporters for the kernel's spans, a local trace
store, `agentframe trace show`, and `read_traces` for programs that show traces."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .store import read_traces

__all__ = ["read_traces"]


def __getattr__(name: str) -> Any:
    if name == "read_traces":  # imported on use: the package stays cheap to import
        from .store import read_traces

        return read_traces
    raise AttributeError(name)
