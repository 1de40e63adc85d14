"""What a server offers besides tools: resources (or resource templates) and prompts.

Servers built with an SDK advertise both capabilities whether or not they have any, so the
first page of each list is read (once per start, within `list_timeout`): a meta tool is
offered only for a server that has something to list.
"""

from __future__ import annotations

from mcp import ClientSession, MCPError

__all__ = ["probe"]


async def probe(session: ClientSession) -> frozenset[str]:
    """`{"resources", "prompts"}`, or part of it: the kinds this server really has."""
    capabilities = session.server_capabilities
    found: set[str] = set()
    if capabilities is None:
        return frozenset()
    try:
        if capabilities.resources is not None and (
            (await session.list_resources()).resources
            or (await session.list_resource_templates()).resource_templates
        ):
            found.add("resources")
        if capabilities.prompts is not None and (await session.list_prompts()).prompts:
            found.add("prompts")
    except MCPError:  # a server that advertises what it cannot list offers none of it
        pass
    return frozenset(found)
