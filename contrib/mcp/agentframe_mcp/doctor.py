"""`agentframe doctor`: does each configured MCP server start?"""

from __future__ import annotations

import asyncio

from agentframe_core import Config, Diagnosis

from .connection import State
from .options import McpConfigError
from .parts import configured_toolsets
from .toolset import McpToolset

__all__ = ["check_servers"]


def check_servers(config: Config) -> list[Diagnosis] | None:
    if not any(part.name == "mcp" for part in config.tools):
        return None
    try:
        toolsets = configured_toolsets(config.tools, config.file)
    except McpConfigError as err:
        return [Diagnosis("mcp config", False, str(err), "fix the file or field named above")]
    return asyncio.run(_start_all(toolsets))


async def _start_all(toolsets: list[McpToolset]) -> list[Diagnosis]:
    found: list[Diagnosis] = []
    try:
        await asyncio.gather(*(toolset.offered() for toolset in toolsets))
        for toolset in toolsets:
            offered = {row["server"]: len(row["tools"]) for row in toolset.status()}
            for name, connection in toolset.connections.items():
                label = f"mcp server {name}"
                if connection.state is State.READY:
                    # the tools a model is offered: allow_tools/deny_tools applied
                    found.append(Diagnosis(label, True, f"{offered[name]} tool(s)"))
                else:
                    found.append(
                        Diagnosis(
                            label,
                            False,
                            connection.error or connection.state.value,
                            "`agentframe -v mcp list` shows the server's stderr",
                        )
                    )
    finally:
        await asyncio.gather(*(toolset.aclose() for toolset in toolsets))
    return found
