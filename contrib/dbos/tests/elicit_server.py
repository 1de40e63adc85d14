"""An MCP server over stdio (the SDK's MCPServer) whose tool asks its client a question:
`python elicit_server.py MARKER_FILE`. `refund {item}` writes `asked` to MARKER_FILE, asks
for an approver (required) and an amount (default 10), and returns the answer as JSON."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("elicit")
MARKER = Path(sys.argv[1])


@server.tool()
async def refund(item: str, ctx: Context) -> str:
    """Refund `item` once a person approves it."""
    with MARKER.open("a") as marker:
        marker.write("asked\n")
    schema = {
        "type": "object",
        "properties": {
            "approver": {"type": "string", "title": "Who approves"},
            "amount": {"type": "integer", "default": 10},
        },
        "required": ["approver"],
    }
    result = await ctx.session.elicit(f"Refund {item}?", schema)
    return json.dumps({"action": result.action, "content": result.content}, sort_keys=True)


if __name__ == "__main__":
    server.run()
