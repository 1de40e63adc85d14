"""The client the MCP conformance suite drives: `python conformance_client.py [PROTOCOL]
SERVER_URL`, with `MCP_CONFORMANCE_SCENARIO` (and `MCP_CONFORMANCE_CONTEXT`: a pre-registered
client, the calls a scenario wants) in the environment. PROTOCOL is the server entry's
`protocol` (`legacy`, the default, or `auto`).

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
#: Scenarios checking each of several tools (SEP-2322's multi-round-trip calls).
CALL_EVERY_TOOL = {"sep-2322-client-request-state"}


def server_entry(
    url: str, scenario: str, context: dict[str, Any], protocol: str = "legacy"
) -> dict[str, Any]:
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
    return {"type": "http", "url": url, "protocol": protocol, **({"auth": auth} if auth else {})}


def planned_calls(
    scenario: str, context: dict[str, Any], tools: list[Any]
) -> list[tuple[str, dict[str, Any]]]:
    """The calls a model would make here: those the scenario names (with their arguments),
    every tool for MRTR, the focal tool, or the first one."""
    named = context.get("toolCalls") or []
    if named:
        return [(f"mcp_{SERVER}_{c['name']}", c.get("arguments") or {}) for c in named]
    if scenario in CALL_EVERY_TOOL:
        return [(t.name, {}) for t in tools]
    name, arguments = CALLS.get(scenario, (None, {}))
    if scenario == "json-schema-2020-12-preservation":
        # the suite checks a 2020-12 input schema came through whole: echo it back as
        # the client keeps it (what the model is shown)
        name = "json_schema_echo"
        focal = next(t for t in tools if t.name == f"mcp_{SERVER}_json_schema_2020_12_tool")
        arguments = {"schema": focal.parameters}
    if name:
        return [(f"mcp_{SERVER}_{name}", arguments)]
    return [(tools[0].name, arguments)] if tools else []


async def run(url: str, scenario: str, context: dict[str, Any], protocol: str) -> int:
    from agentframe_mcp import McpOptions, McpToolset
    from agentframe_mcp.login import log_in

    from agentframe_core import MemoryStore, RunContext, Stack, ToolCall, VerbatimBuilder
    from agentframe_core.testing import ScriptedAdapter

    entry = server_entry(url, scenario, context, protocol)
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
        calls = planned_calls(scenario, context, tools)
        for number, (exposed, arguments) in enumerate(calls, 1):
            result = await toolset.dispatch(ToolCall(str(number), exposed, arguments), ctx)
            print(result.content[:500], file=sys.stderr)
        if interactive and calls and result.is_error and "agentframe mcp login" in result.content:
            await log_in(McpToolset(options).connections[SERVER], 20)
            await toolset.aclose()
            toolset = McpToolset(options)
            await toolset.offered()
            result = await toolset.dispatch(ToolCall("again", *calls[-1]), ctx)
            print(result.content[:500], file=sys.stderr)
    finally:
        await toolset.aclose()
    return 0


def main(url: str, protocol: str = "legacy") -> int:
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    context: dict[str, Any] = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="conformance-")
    os.environ["BROWSER"] = f"{sys.executable} {BROWSER} %s"
    return asyncio.run(run(url, scenario, context, protocol))


if __name__ == "__main__":
    sys.exit(main(sys.argv[-1], *sys.argv[1:-1]))
