"""Tool names as Claude Code spells them, for matchers and permission rules.

agentframe's MCP client exposes a server's tool as `mcp_{server}_{tool}`; Claude Code names it
`mcp__{server}__{tool}`. A server name may hold `_`, so an exposed name reads several ways:
each is a candidate, and a matcher or rule matches when it matches one of them.
"""

from __future__ import annotations

__all__ = ["claude_names"]


def claude_names(name: str) -> list[str]:
    """`name` as Claude Code may spell it, the likeliest first (the name itself for any
    tool that is not agentframe's spelling of an MCP tool)."""
    if name.startswith("mcp__") or not name.startswith("mcp_"):
        return [name]
    rest = name[len("mcp_") :]
    cuts = [i for i, char in enumerate(rest) if char == "_" and 0 < i < len(rest) - 1]
    return [f"mcp__{rest[:i]}__{rest[i + 1 :]}" for i in cuts] or [name]
