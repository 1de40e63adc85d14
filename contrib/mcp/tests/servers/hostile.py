"""A small raw JSON-RPC MCP server over stdio that misbehaves on request.

    python hostile.py MODE

    python hostile.py listing FILE

Modes: `mute` never answers initialize; `slow` takes 1.5 s to start; `stubborn` ignores stdin
closing and SIGTERM, and so does a child it starts (both pids are printed to stderr); `normal`
behaves; `listing` answers tools/list with the JSON list of tools in FILE, verbatim (hostile
schemas, names, counts), and every call with `called NAME`. In every other mode but
`mute`, tools: `sleep {seconds}`, `crash {code}` (exits mid-call), `grow` (adds a tool, then
sends notifications/tools/list_changed), `env {name}`, `shout {text}` (writes to stderr).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "normal"
TOOLS = ["sleep", "crash", "grow", "env", "shout"]


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def tool(name: str) -> dict:
    properties = {
        "sleep": {"seconds": {"type": "number"}},
        "crash": {"code": {"type": "integer"}},
        "env": {"name": {"type": "string"}},
        "shout": {"text": {"type": "string"}},
    }.get(name, {})
    return {
        "name": name,
        "description": f"the {name} tool",
        "inputSchema": {"type": "object", "properties": properties},
    }


def call(name: str, args: dict) -> str:
    if name == "sleep":
        time.sleep(float(args.get("seconds", 60)))
        return "slept"
    if name == "crash":
        sys.stderr.write("about to crash\n")
        sys.stderr.flush()
        os._exit(int(args.get("code", 3)))
    if name == "grow":
        TOOLS.append(f"extra{len(TOOLS)}")
        send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        return "grown"
    if name == "env":
        return os.environ.get(str(args.get("name")), "<unset>")
    if name == "shout":
        sys.stderr.write(f"{args.get('text')}\n")
        sys.stderr.flush()
        return "shouted"
    return f"called {name}"


def answer(request: dict) -> dict | None:
    method, rid = request.get("method"), request.get("id")
    if rid is None:
        return None
    if method == "initialize":
        result: dict = {
            "protocolVersion": request["params"]["protocolVersion"],
            "capabilities": {"tools": {"listChanged": True}},
            "serverInfo": {"name": "hostile", "version": "0"},
        }
    elif method == "tools/list" and MODE == "listing":
        with open(sys.argv[2]) as listing:
            result = {"tools": json.load(listing)}
    elif method == "tools/list":
        result = {"tools": [tool(n) for n in TOOLS]}
    elif method == "tools/call":
        params = request["params"]
        text = call(params["name"], params.get("arguments") or {})
        result = {"content": [{"type": "text", "text": text}], "isError": False}
    else:
        return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "no"}}
    return {"jsonrpc": "2.0", "id": rid, "result": result}


def stubborn() -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import signal,time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(600)",
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
    )
    sys.stderr.write(f"pids {os.getpid()} {child.pid}\n")
    sys.stderr.flush()


def main() -> None:
    if MODE == "stubborn":
        stubborn()
    if MODE == "slow":
        time.sleep(1.5)
    for line in sys.stdin:
        if MODE == "mute":
            continue
        reply = answer(json.loads(line))
        if reply is not None:
            send(reply)
    if MODE in ("stubborn", "mute"):
        time.sleep(600)  # stdin closed: ignore it


if __name__ == "__main__":
    main()
