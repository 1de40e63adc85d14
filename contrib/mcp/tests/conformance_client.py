"""The client the MCP conformance suite drives: `python conformance_client.py SERVER_URL`,
with `MCP_CONFORMANCE_SCENARIO` (and, for pre-registered clients, `MCP_CONFORMANCE_CONTEXT`)
in the environment.

It does what a user does, with agentframe's own code in one process (a CLI process per step
would take most of the suite's time on a loaded machine): the server is configured as in a
`.mcp.json` (a pre-registered client's secret in an environment variable), the login of
`agentframe mcp login` runs the browser step (the browser being `servers/browser.py`, which
follows the authorization server's redirect to the loopback port), then a toolset lists the
tools and calls one as a run would. A call refused for want of scope says to log in again;
the runner does, once, and calls again.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

BROWSER = Path(__file__).parent / "servers" / "browser.py"
SERVER = "conformance"
CALLS = {"tools_call": ("add_numbers", {"a": 5, "b": 3}), "sse-retry": ("test_reconnection", {})}


def server_entry(url: str, scenario: str, context: dict[str, Any]) -> dict[str, Any]:
    auth: dict[str, Any] = {}
    if scenario.startswith("auth/"):
        auth["client_metadata_url"] = "https://conformance-test.local/client-metadata.json"
    if context.get("client_id"):
        auth["client_id"] = context["client_id"]
    if context.get("client_secret"):
        os.environ["CONFORMANCE_CLIENT_SECRET"] = context["client_secret"]
        auth["client_secret_env"] = "CONFORMANCE_CLIENT_SECRET"
    if context.get("private_key_pem"):
        os.environ["CONFORMANCE_PRIVATE_KEY"] = context["private_key_pem"]
        auth["private_key_env"] = "CONFORMANCE_PRIVATE_KEY"
        auth["signing_algorithm"] = context.get("signing_algorithm", "ES256")
    if scenario.startswith("auth/client-credentials"):
        auth["grant"] = "client_credentials"
    return {"type": "http", "url": url, **({"auth": auth} if auth else {})}


async def run(url: str, scenario: str, context: dict[str, Any]) -> int:
    from agentframe_mcp import McpOptions, McpToolset
    from agentframe_mcp.login import log_in

    from agentframe_core import MemoryStore, RunContext, Stack, ToolCall, VerbatimBuilder
    from agentframe_core.testing import ScriptedAdapter

    entry = server_entry(url, scenario, context)
    options = McpOptions(
        project=False,
        servers={SERVER: entry},
        elicitation="defaults",
        startup_timeout=60,  # the suite runs its scenarios at once: a loaded machine
        list_timeout=60,
    )
    interactive = scenario.startswith("auth/") and entry["auth"].get("grant") is None
    if interactive:
        await log_in(McpToolset(options).connections[SERVER], 20)
    toolset = McpToolset(options)
    stack = Stack(adapter=ScriptedAdapter(), store=MemoryStore(), context=VerbatimBuilder())
    ctx = RunContext("conformance", stack)
    try:
        tools = await toolset.offered()
        name, arguments = CALLS.get(scenario, (None, {}))
        if scenario == "json-schema-2020-12-preservation":
            # the suite checks a 2020-12 input schema came through whole: echo it back as
            # the client keeps it (what the model is shown)
            name = "json_schema_echo"
            focal = next(t for t in tools if t.name == f"mcp_{SERVER}_json_schema_2020_12_tool")
            arguments = {"schema": focal.parameters}
        exposed = f"mcp_{SERVER}_{name}" if name else (tools[0].name if tools else None)
        if exposed is None:
            return 0
        result = await toolset.dispatch(ToolCall("1", exposed, arguments), ctx)
        print(result.content[:500], file=sys.stderr)
        if interactive and result.is_error and "agentframe mcp login" in result.content:
            await log_in(McpToolset(options).connections[SERVER], 20)
            await toolset.aclose()
            toolset = McpToolset(options)
            await toolset.offered()
            result = await toolset.dispatch(ToolCall("2", exposed, arguments), ctx)
            print(result.content[:500], file=sys.stderr)
    finally:
        await toolset.aclose()
    return 0


def main(url: str) -> int:
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    context: dict[str, Any] = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="conformance-")
    os.environ["BROWSER"] = f"{sys.executable} {BROWSER} %s"
    return asyncio.run(run(url, scenario, context))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
