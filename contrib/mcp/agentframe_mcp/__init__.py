"""MCP for agentframe: MCP servers' tools in a stack (`use: mcp`), and agents served over MCP
(`agentframe mcp serve`)."""

from __future__ import annotations

from .options import McpConfigError, McpOptions
from .toolset import McpToolset

__all__ = ["McpConfigError", "McpOptions", "McpToolset"]
