"""Meta tools the model can call for what servers offer besides tools: resources (list,
read, templates) and prompts (list, get). Each is offered only when some running server
has such things (`offers.py`), and takes `server` as an enum of those servers.

A resource read is cut to `max_resource_bytes` (the text says where, and how large the
resource was); a reply too large for the transport (32 MiB) fails the read with an error
naming the cap, the server keeps working (HTTP) or is restarted (stdio).
"""

from __future__ import annotations

import json
from typing import Any

import anyio
from mcp import MCPError, types

from agentframe_core import Tool, ToolResult

from .connection import McpConnection, ServerUnavailableError
from .prompts import list_prompts, render_prompt
from .rounds import resolved

__all__ = ["META_TOOLS", "call_meta_tool", "meta_tools"]

MAX_LISTED = 1000  # resources or templates one listing returns to the model


def _server_arg(names: list[str]) -> dict[str, Any]:
    return {"type": "string", "enum": names, "description": "The MCP server."}


def meta_tools(connections: list[McpConnection], call_timeout: float) -> list[Tool]:
    """The meta tools that apply to these (running) servers."""
    resources = sorted(c.name for c in connections if _has(c, "resources"))
    prompts = sorted(c.name for c in connections if _has(c, "prompts"))
    tools: list[Tool] = []

    def add(name: str, description: str, props: dict[str, Any], required: list[str]) -> None:
        parameters = {"type": "object", "properties": props, "required": required}
        tools.append(
            Tool(
                name=name,
                description=description,
                parameters=parameters,
                timeout=call_timeout + 1.0,
            )
        )

    if resources:
        server = _server_arg(resources)
        add(
            "list_mcp_resources",
            "List the resources (files, records, ...) an MCP server offers: uri, name, type.",
            {"server": server},
            ["server"],
        )
        add(
            "read_mcp_resource",
            "Read one resource of an MCP server by its uri.",
            {"server": server, "uri": {"type": "string"}},
            ["server", "uri"],
        )
        add(
            "list_mcp_resource_templates",
            "List an MCP server's resource templates (uri patterns to fill and read).",
            {"server": server},
            ["server"],
        )
    if prompts:
        server = _server_arg(prompts)
        add(
            "list_mcp_prompts",
            "List the prompts an MCP server offers, with their arguments.",
            {"server": server},
            ["server"],
        )
        add(
            "get_mcp_prompt",
            "Get one prompt of an MCP server, filled with its arguments.",
            {
                "server": server,
                "name": {"type": "string"},
                "arguments": {"type": "object", "additionalProperties": {"type": "string"}},
            },
            ["server", "name"],
        )
    return tools


META_TOOLS = frozenset(
    {
        "list_mcp_resources",
        "read_mcp_resource",
        "list_mcp_resource_templates",
        "list_mcp_prompts",
        "get_mcp_prompt",
    }
)


def _has(connection: McpConnection, kind: str) -> bool:
    return kind in connection.offers


async def call_meta_tool(
    name: str, arguments: dict[str, Any], connection: McpConnection, max_bytes: int
) -> ToolResult:
    """Run one meta tool on `connection`; failures are error results naming the server."""
    where = f"MCP server {connection.name!r}"
    try:
        session = await connection.ensure()
        with anyio.fail_after(connection.options.call_timeout):
            if name == "list_mcp_resources":
                listed = await session.list_resources()
                rows = [
                    {"uri": r.uri, "name": r.name, "mime_type": r.mime_type, "size": r.size}
                    for r in listed.resources[:MAX_LISTED]
                ]
                return ToolResult(json.dumps(rows, default=str))
            if name == "list_mcp_resource_templates":
                templates = await session.list_resource_templates()
                rows = [
                    {"uri_template": t.uri_template, "name": t.name, "description": t.description}
                    for t in templates.resource_templates[:MAX_LISTED]
                ]
                return ToolResult(json.dumps(rows))
            if name == "read_mcp_resource":
                uri = str(arguments.get("uri", ""))
                read = await resolved(
                    session,
                    lambda answers, state: session.read_resource(
                        uri, input_responses=answers, request_state=state, allow_input_required=True
                    ),
                )
                return _contents(uri, read, max_bytes)
            if name == "list_mcp_prompts":
                return ToolResult(json.dumps(await list_prompts(connection)))
            return ToolResult(
                await render_prompt(
                    connection,
                    str(arguments.get("name", "")),
                    {str(k): str(v) for k, v in (arguments.get("arguments") or {}).items()},
                )
            )
    except TimeoutError:
        return ToolResult(
            f"{where}: {name} timed out after {connection.options.call_timeout:g} s", True
        )
    except ServerUnavailableError as err:
        return ToolResult(str(err), True)
    except MCPError as err:
        return await connection.call_failed(name, err)


def _contents(uri: str, result: types.ReadResourceResult, max_bytes: int) -> ToolResult:
    """The resource's text, cut to `max_bytes` in all; binary parts as attachments."""
    parts: list[str] = []
    attachments: list[dict[str, Any]] = []
    left = max_bytes
    for item in result.contents:
        if isinstance(item, types.TextResourceContents):
            data = item.text.encode("utf-8")
            shown = data[: max(left, 0)].decode("utf-8", "ignore")
            left -= len(data)
            note = (
                f" (cut at {max_bytes} bytes of {len(data)}: max_resource_bytes)"
                if len(shown.encode()) < len(data)
                else ""
            )
            parts.append(f"[resource {item.uri}{note}]\n{shown}")
        else:
            size = len(item.blob) * 3 // 4
            if size > left:
                parts.append(
                    f"[resource {item.uri}: {item.mime_type or 'binary'}, {size} bytes: more "
                    f"than max_resource_bytes ({max_bytes}), not kept]"
                )
                continue
            left -= size
            parts.append(
                f"[resource {item.uri}: {item.mime_type or 'binary'}, {size} bytes; "
                f"attachment {len(attachments)}]"
            )
            attachments.append(
                {
                    "type": "resource",
                    "uri": str(item.uri),
                    "mime_type": item.mime_type,
                    "data": item.blob,
                }
            )
    meta = {"attachments": attachments} if attachments else {}
    return ToolResult("\n".join(parts) or f"[resource {uri}: empty]", meta=meta)
