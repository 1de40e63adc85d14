"""An MCP server over SSE on 127.0.0.1, built with the SDK's MCPServer: `python sse.py PORT`."""

from __future__ import annotations

import asyncio
import sys

from mcp.server.mcpserver import MCPServer

server = MCPServer("sse-test")


@server.tool()
def shout(text: str) -> str:
    """Upper-case the text."""
    return text.upper()


if __name__ == "__main__":
    asyncio.run(server.run_sse_async(host="127.0.0.1", port=int(sys.argv[1])))
