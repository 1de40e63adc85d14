"""`agentframe doctor`: does each configured MCP server start?"""

from __future__ import annotations

import asyncio

from agentframe_core import Config, Diagnosis, UntrustedFolderError

from .connection import McpConnection, State
from .names import exposed_name
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
    except UntrustedFolderError as err:  # checked in a process that may run projects (serve)
        return [Diagnosis("mcp project servers", True, f"not started: {err}")]
    return asyncio.run(_start_all(toolsets))


async def _start_all(toolsets: list[McpToolset]) -> list[Diagnosis]:
    found = [
        Diagnosis("mcp project servers", True, note)
        for toolset in toolsets
        for note in toolset.notes
    ]
    try:
        await asyncio.gather(*(toolset.offered() for toolset in toolsets))
        for toolset in toolsets:
            for name, connection in toolset.connections.items():
                label = f"mcp server {name}"
                if connection.state is State.READY:
                    found.append(Diagnosis(label, True, _offered(toolset, connection)))
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


def _offered(toolset: McpToolset, connection: McpConnection) -> str:
    """The tools the model is offered (what `allow_tools`/`deny_tools` leave), and the total."""
    total = len(connection.tools)
    allowed = toolset.options.tool_allowed
    offered = sum(1 for t in connection.tools if allowed(exposed_name(connection.name, t.name)))
    if offered == total:
        return f"{total} tool(s)"
    return f"{offered} tool(s) offered to the model, of {total} (allow_tools/deny_tools)"
