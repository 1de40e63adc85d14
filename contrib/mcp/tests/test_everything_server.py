"""Against the reference server `@modelcontextprotocol/server-everything` (npm, run with node):
every kind of content a tool can return reaches the result, nothing is dropped."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any

from agentframe_mcp import McpToolset

from agentframe_core import RunContext, ToolCall

Make = Callable[..., McpToolset]


async def call(toolset: McpToolset, ctx: RunContext, tool: str, **arguments: Any) -> Any:
    await toolset.tools(ctx)
    return await toolset.dispatch(ToolCall("c", f"mcp_everything_{tool}", arguments), ctx)


async def test_listing_and_a_text_call(
    make_toolset: Make, everything: dict[str, Any], ctx: RunContext
) -> None:
    toolset = make_toolset({"everything": everything})
    names = {t.name for t in await toolset.tools(ctx)}
    assert {"mcp_everything_echo", "mcp_everything_get-tiny-image"} <= names
    assert all(len(n) <= 64 for n in names)
    result = await call(toolset, ctx, "echo", message="hello mcp")
    assert (result.content, result.is_error) == ("Echo: hello mcp", False)


async def test_structured_content_is_shown_and_kept(
    make_toolset: Make, everything: dict[str, Any], ctx: RunContext
) -> None:
    toolset = make_toolset({"everything": everything})
    result = await call(toolset, ctx, "get-structured-content", location="Chicago")
    assert not result.is_error, result.content
    structured = result.meta["structured_content"]
    assert isinstance(structured, dict) and structured, structured
    # the model sees it: a text block says the same, or the JSON is appended
    texts = result.content.split("\n")
    assert any(_json(t) == structured for t in texts) or json.dumps(structured) in result.content


async def test_an_image_is_named_for_the_model_and_kept_whole(
    make_toolset: Make, everything: dict[str, Any], ctx: RunContext
) -> None:
    toolset = make_toolset({"everything": everything})
    result = await call(toolset, ctx, "get-tiny-image")
    assert not result.is_error, result.content
    (image,) = [a for a in result.meta["attachments"] if a["type"] == "image"]
    assert image["mime_type"] == "image/png"
    png = base64.b64decode(image["data"])
    assert png.startswith(b"\x89PNG")
    assert f"[image: image/png, {len(png)} bytes; attachment 0]" in result.content


async def test_resource_links_and_embedded_resources_are_shown(
    make_toolset: Make, everything: dict[str, Any], ctx: RunContext
) -> None:
    toolset = make_toolset({"everything": everything})
    links = await call(toolset, ctx, "get-resource-links", count=2)
    assert links.content.count("[resource link: ") == 2, links.content
    assert "<demo://resource/" in links.content
    embedded = await call(toolset, ctx, "get-resource-reference", resourceType="Text", resourceId=1)
    assert "[resource <demo://resource/" in embedded.content, embedded.content


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None
