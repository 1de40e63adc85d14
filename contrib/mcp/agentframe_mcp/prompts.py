"""A server's prompts in a plain shape: for the `get_mcp_prompt` meta tool, and for a chat
front end that offers them as slash commands (`server_prompts`, `render_prompt`)."""

from __future__ import annotations

from typing import Any

import anyio
from mcp import types

from .connection import McpConnection
from .rounds import resolved

__all__ = ["list_prompts", "prompt_text", "render_prompt", "server_prompts"]

MAX_PROMPTS = 1000


async def list_prompts(connection: McpConnection) -> list[dict[str, Any]]:
    """`[{server, name, description, arguments: [{name, description, required}]}]`, every
    page (at most MAX_PROMPTS), within the call timeout."""
    session = await connection.ensure()
    found: list[dict[str, Any]] = []
    cursor: str | None = None
    with anyio.fail_after(connection.options.call_timeout):
        while len(found) < MAX_PROMPTS:
            params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
            page = await session.list_prompts(params=params)
            for prompt in page.prompts:
                found.append(
                    {
                        "server": connection.name,
                        "name": prompt.name,
                        "description": prompt.description or prompt.title or "",
                        "arguments": [
                            {
                                "name": a.name,
                                "description": a.description or "",
                                "required": bool(a.required),
                            }
                            for a in prompt.arguments or []
                        ],
                    }
                )
            cursor = page.next_cursor
            if not cursor:
                break
    return found[:MAX_PROMPTS]


def prompt_text(result: types.GetPromptResult) -> str:
    """The prompt's messages as text, one `[role]` block each (images and audio named)."""
    blocks = []
    for message in result.messages:
        content = message.content
        if isinstance(content, types.TextContent):
            text = content.text
        elif isinstance(content, types.EmbeddedResource) and isinstance(
            content.resource, types.TextResourceContents
        ):
            text = f"[resource {content.resource.uri}]\n{content.resource.text}"
        else:
            text = f"[{content.type}]"
        blocks.append(f"[{message.role}]\n{text}")
    return "\n\n".join(blocks)


async def render_prompt(
    connection: McpConnection, name: str, arguments: dict[str, str] | None = None
) -> str:
    """`prompts/get` NAME with ARGUMENTS, as text."""
    session = await connection.ensure()
    with anyio.fail_after(connection.options.call_timeout):
        result = await resolved(
            session,
            lambda answers, state: session.get_prompt(
                name,
                arguments or {},
                input_responses=answers,
                request_state=state,
                allow_input_required=True,
            ),
        )
    return prompt_text(result)


async def server_prompts(connections: list[McpConnection]) -> list[dict[str, Any]]:
    """The prompts of every running server that has any (for slash commands)."""
    found: list[dict[str, Any]] = []
    for connection in connections:
        if "prompts" in connection.offers:
            found.extend(await list_prompts(connection))
    return found
