"""An MCP server over stdio, built with the SDK's MCPServer, that asks things of its client:
`python asking.py [MARKER_FILE]`.

Tools: `ask_name` (a form with defaults; returns the answer as JSON), `ask_huge` (a 200-field,
~100 KB schema), `sample {times}` (asks the client's model `times` times; returns how many
were answered and the first refusal), `greet_asked` (asks for a name the way that works in
either protocol revision, a `Resolve` dependency: a request mid-call on 2025-11-25, an
`InputRequiredResult` on 2026-07-28; greets the name), `progress` (three progress
notifications), `slow` (sleeps 60 s; a cancelled call writes `cancelled` to MARKER_FILE),
`roots` (the client's roots), `grow` (adds the tool `grown` and announces the change: on a
`subscriptions/listen` stream at 2026-07-28, as `notifications/tools/list_changed` before).
Resource `note://hello`, prompt `greet {name}`.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Annotated

from mcp import types
from mcp.server.mcpserver import Context, Elicit, MCPServer, Resolve
from pydantic import BaseModel

server = MCPServer("asking")
MARKER = Path(sys.argv[1]) if len(sys.argv) > 1 else None


@server.tool()
async def ask_name(ctx: Context) -> str:
    """Ask for a name and an age."""
    schema: dict = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "default": "Ada"},
            "age": {"type": "integer", "default": 36},
            "colour": {"type": "string", "enum": ["red", "blue"]},
        },
        "required": ["name"],
    }
    result = await ctx.session.elicit("Who are you?", schema)
    return json.dumps({"action": result.action, "content": result.content})


class Who(BaseModel):
    name: str = "Ada"


def ask_who() -> Elicit[Who]:
    return Elicit("Who are you?", Who)


@server.tool()
async def greet_asked(who: Annotated[Who, Resolve(ask_who)], ctx: Context) -> str:
    """Ask for a name, then greet it (saying which protocol revision asked)."""
    return f"hello {who.name} ({ctx.protocol_version})"


@server.tool()
async def ask_huge(ctx: Context) -> str:
    """Ask with a huge schema."""
    properties = {f"field{i}": {"type": "string", "description": "x" * 500} for i in range(200)}
    try:
        result = await ctx.session.elicit(
            "Fill all of it", {"type": "object", "properties": properties}
        )
    except Exception as err:  # the client's refusal, as the SDK raises it
        return f"refused: {err}"
    return f"answered: {result.action}"


@server.tool()
async def sample(times: int, ctx: Context) -> str:
    """Ask the client's model `times` times."""
    answered, refusal = 0, ""
    for i in range(times):
        try:
            reply = await ctx.session.create_message(
                [
                    types.SamplingMessage(
                        role="user", content=types.TextContent(type="text", text=f"say {i}")
                    )
                ],
                max_tokens=100_000,
            )
        except Exception as err:
            refusal = str(err)
            break
        answered += 1
        last = reply.content.text if isinstance(reply.content, types.TextContent) else ""
    return json.dumps({"answered": answered, "refusal": refusal, "last": last if answered else ""})


@server.tool()
async def progress(ctx: Context) -> str:
    """Three steps, each reported."""
    for step in range(1, 4):
        await ctx.report_progress(step, 3, f"step {step}")
        await asyncio.sleep(0.05)
    return "done"


@server.tool()
async def slow(ctx: Context) -> str:
    """Sleep a minute; say so in the marker file when cancelled."""
    try:
        await asyncio.sleep(60)
    except asyncio.CancelledError:
        if MARKER is not None:
            MARKER.write_text("cancelled")
        raise
    return "slept"


@server.tool()
async def roots(ctx: Context) -> str:
    """The client's roots."""
    listed = await ctx.session.list_roots()
    return json.dumps([str(root.uri) for root in listed.roots])


def grown() -> str:
    """A tool added while the server runs."""
    return "grown"


@server.tool()
async def grow(ctx: Context) -> str:
    """Add the tool `grown`, and say the tool list changed."""
    server.add_tool(grown)
    if ctx.protocol_version >= "2026":
        await ctx.notify_tools_changed()
    else:
        await ctx.session.send_tool_list_changed()
    return "added"


@server.resource("note://hello", mime_type="text/plain")
def hello() -> str:
    return "hello from a resource"


@server.prompt()
def greet(name: str) -> str:
    """Greet someone."""
    return f"Please greet {name} warmly."


if __name__ == "__main__":
    server.run()
