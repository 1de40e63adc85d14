"""Which tools of a server's list are kept: each input schema bounded in size and depth,
pointing nowhere outside itself, and a valid JSON schema.

A `$ref` that is not a local `#...` pointer would be fetched by a validator that resolves
remote references (a URL: a hang with no timeout; `file://`: a local file's content in an
error message), so such a tool is left out, as is one whose schema would cost unbounded work
to check. The checks run inside the listing's timeout: they yield between tools.
"""

from __future__ import annotations

import logging
from typing import Any

import anyio.lowlevel
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from jsonschema.validators import validator_for
from mcp import types

from agentframe_core import redact_url

__all__ = ["MAX_SCHEMA_BYTES", "MAX_SCHEMA_DEPTH", "kept_tools", "schema_problem"]

#: An input schema larger than this (about its JSON size) is refused.
MAX_SCHEMA_BYTES = 64 * 1024
#: Nesting (objects and arrays) deeper than this is refused.
MAX_SCHEMA_DEPTH = 32
_REFS = ("$ref", "$dynamicRef", "$recursiveRef")

log = logging.getLogger("agentframe.mcp")


def schema_problem(schema: Any) -> str | None:
    """Why an input schema is refused, or None. Walks it once, without recursion, and stops
    at the first bound it passes."""
    size, stack = 0, [(schema, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_SCHEMA_DEPTH:
            return f"is nested deeper than {MAX_SCHEMA_DEPTH} levels"
        if isinstance(node, dict):
            for key, value in node.items():
                size += len(key) + 4
                if key in _REFS and isinstance(value, str) and not value.startswith("#"):
                    return (
                        f"has {key} {redact_url(value[:100])!r}, outside the schema "
                        "(only local '#...' refs are followed)"
                    )
                stack.append((value, depth + 1))
        elif isinstance(node, list):
            stack.extend((item, depth + 1) for item in node)
        size += len(node) + 2 if isinstance(node, str) else 2
        if size > MAX_SCHEMA_BYTES:
            return f"is larger than {MAX_SCHEMA_BYTES // 1024} KiB"
    try:
        validator_for(schema, default=Draft202012Validator).check_schema(schema)
    except SchemaError as err:
        return f"is not a valid JSON schema: {err.message[:200]}"
    return None


async def kept_tools(server: str, tools: list[types.Tool]) -> list[types.Tool]:
    """`tools` without those whose schema is refused (each logged, naming server and tool)."""
    kept = []
    for tool in tools:
        problem = schema_problem(tool.input_schema)
        if problem is None:
            kept.append(tool)
        else:
            log.warning("MCP tool %s/%s left out: its input schema %s", server, tool.name, problem)
        await anyio.lowlevel.checkpoint()  # the listing's timeout can fire between tools
    return kept
