"""The client the MCP conformance suite drives: `python conformance_client.py SERVER_URL`,
with `MCP_CONFORMANCE_SCENARIO` (and, for pre-registered clients, `MCP_CONFORMANCE_CONTEXT`)
in the environment.

It does what a user does, through agentframe's CLI in a project of its own: the server goes
in the project's `.mcp.json` (a pre-registered client's secret in an environment variable),
`agentframe mcp login` runs the browser step (the browser being `servers/browser.py`, which
follows the authorization server's redirect to the loopback port), `agentframe mcp list`
lists the tools and `agentframe mcp call` calls one. A call refused for want of scope says to
log in again; the runner does, once, and calls again.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

BROWSER = Path(__file__).parent / "servers" / "browser.py"
SERVER = "conformance"
CALLS = {"tools_call": ("add_numbers", {"a": 5, "b": 3}), "sse-retry": ("test_reconnection", {})}


def cli(folder: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    agentframe = Path(sys.executable).with_name("agentframe")
    done = subprocess.run(
        [str(agentframe), *args], cwd=folder, env=env, capture_output=True, text=True, timeout=60
    )
    sys.stderr.write(f"$ agentframe {' '.join(args)} -> {done.returncode}\n{done.stderr}")
    return done


def main(url: str) -> int:
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    context: dict[str, Any] = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    folder = Path(tempfile.mkdtemp(prefix="conformance-"))
    env = {
        **os.environ,
        "XDG_DATA_HOME": str(folder / "data"),
        "BROWSER": f"{sys.executable} {BROWSER} %s",
    }
    auth: dict[str, Any] = {}
    if scenario.startswith("auth/"):
        auth["client_metadata_url"] = "https://conformance-test.local/client-metadata.json"
    if context.get("client_id"):
        auth["client_id"] = context["client_id"]
    if context.get("client_secret"):
        env["CONFORMANCE_CLIENT_SECRET"] = context["client_secret"]
        auth["client_secret_env"] = "CONFORMANCE_CLIENT_SECRET"
    client_credentials = scenario.startswith("auth/client-credentials")
    if client_credentials:
        auth["grant"] = "client_credentials"
    entry: dict[str, Any] = {"type": "http", "url": url}
    if auth:
        entry["auth"] = auth
    (folder / ".mcp.json").write_text(json.dumps({"mcpServers": {SERVER: entry}}))
    (folder / ".mcp.json").chmod(0o600)
    config = {
        "adapter": {"use": "scripted", "replies": ["ok"]},
        "store": {"use": "memory"},
        "tools": [{"use": "mcp", "elicitation": "defaults"}],
    }
    (folder / "agentframe.yaml").write_text(json.dumps(config))
    if scenario.startswith("auth/") and not client_credentials:
        if cli(folder, env, "mcp", "login", SERVER, "--timeout", "20").returncode != 0:
            return 1
    listed = cli(folder, env, "mcp", "list", "--json")
    if listed.returncode != 0:
        return 1
    (row,) = json.loads(listed.stdout)["servers"]
    tool, arguments = CALLS.get(scenario, (None, {}))
    if tool is None:
        if not row["tools"]:
            return 0
        tool = row["tools"][0]["tool"]
    call = cli(folder, env, "mcp", "call", SERVER, tool, json.dumps(arguments))
    if call.returncode != 0 and "agentframe mcp login" in call.stdout + call.stderr:
        if cli(folder, env, "mcp", "login", SERVER, "--timeout", "20").returncode != 0:
            return 1
        call = cli(folder, env, "mcp", "call", SERVER, tool, json.dumps(arguments))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
