"""An MCP `CallToolResult` as a kernel `ToolResult`, dropping nothing.

A `ToolResult` carries text for the model and JSON `meta` kept in the store. Text blocks are
the text; structured content is shown as JSON (unless a text block already says it, also as
the only value of a one-key object) and kept whole in `meta["structured_content"]`; images,
audio and binary resources are named in the text and kept, base64, in `meta["attachments"]`;
resource links are shown with their URI; the result's own `_meta` is kept in
`meta["mcp_meta"]`.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from mcp import types

from agentframe_core import ToolResult

__all__ = ["to_tool_result"]


def _size(data: str) -> int:
    """Decoded size of base64 `data` (or its length when it is not base64)."""
    try:
        return len(base64.b64decode(data, validate=True))
    except (binascii.Error, ValueError):
        return len(data)


def _binary(kind: str, mime: str | None, data: str, attachments: list[dict[str, Any]]) -> str:
    attachments.append({"type": kind, "mime_type": mime, "data": data})
    index = len(attachments) - 1
    return f"[{kind}: {mime or 'unknown type'}, {_size(data)} bytes; attachment {index}]"


def _block(block: types.ContentBlock, attachments: list[dict[str, Any]]) -> str:
    if isinstance(block, types.TextContent):
        return block.text
    if isinstance(block, types.ImageContent | types.AudioContent):
        return _binary(block.type, block.mime_type, block.data, attachments)
    if isinstance(block, types.ResourceLink):
        parts = [f"[resource link: {block.name} <{block.uri}>"]
        if block.mime_type:
            parts.append(f" ({block.mime_type})")
        if block.description:
            parts.append(f": {block.description}")
        return "".join(parts) + "]"
    if isinstance(block, types.EmbeddedResource):
        resource = block.resource
        if isinstance(resource, types.TextResourceContents):
            return f"[resource <{resource.uri}>]\n{resource.text}"
        text = _binary("resource", resource.mime_type, resource.blob, attachments)
        attachments[-1]["uri"] = str(resource.uri)
        return text
    # a content type this SDK version knows and this mapping does not: shown as JSON
    return json.dumps(block.model_dump(mode="json", by_alias=True, exclude_none=True))


def to_tool_result(result: types.CallToolResult) -> ToolResult:
    attachments: list[dict[str, Any]] = []
    texts = [_block(block, attachments) for block in result.content]
    meta: dict[str, Any] = {}
    structured = result.structured_content
    if structured is not None:
        meta["structured_content"] = structured
        encoded = json.dumps(structured, ensure_ascii=False, default=str)
        if not any(_same_json(text, structured) for text in texts):
            texts.append(encoded)
    if attachments:
        meta["attachments"] = attachments
    if result.meta:
        meta["mcp_meta"] = result.meta
    if result.is_error:
        meta["mcp_error"] = True
    return ToolResult("\n".join(texts), bool(result.is_error), meta=meta)


def _same_json(text: str, value: Any) -> bool:
    """Does `text` already say `value`? Also when `value` wraps it in an object of one key:
    the SDKs' `{"result": value}` for a plain return value, a file server's
    `{"content": text}` (shown twice, a file read would cost its tokens twice)."""
    if isinstance(value, dict) and len(value) == 1:
        inner = next(iter(value.values()))
        if text == inner or _same_json(text, inner):
            return True
    try:
        decoded = json.loads(text)
    except ValueError:
        return False
    return bool(decoded == value)
