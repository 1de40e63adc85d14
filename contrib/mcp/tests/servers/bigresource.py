"""A raw JSON-RPC MCP server over stdio whose one resource, `big://blob`, is 200 MB of text:
`python bigresource.py`. The reply is written in 1 MiB pieces, so the server itself stays
small however large the resource is."""

from __future__ import annotations

import json
import sys

SIZE = 200 * 1024 * 1024
CHUNK = b"a" * (1024 * 1024)


def send(message: dict) -> None:
    sys.stdout.buffer.write(json.dumps(message).encode() + b"\n")
    sys.stdout.buffer.flush()


def result(request: dict) -> dict | None:
    method = request.get("method")
    if method == "initialize":
        return {
            "protocolVersion": request["params"]["protocolVersion"],
            "capabilities": {"resources": {}, "tools": {}},
            "serverInfo": {"name": "big", "version": "1"},
        }
    if method == "tools/list":
        return {"tools": []}
    if method == "resources/list":
        return {"resources": [{"uri": "big://blob", "name": "blob", "size": SIZE}]}
    return {}


for line in sys.stdin:
    request = json.loads(line)
    if "id" not in request:
        continue
    if request.get("method") == "resources/read":
        head = {
            "jsonrpc": "2.0",
            "id": request["id"],
            "result": {"contents": [{"uri": "big://blob", "text": ""}]},
        }
        start, _, end = json.dumps(head).encode().partition(b'""')
        out = sys.stdout.buffer
        try:
            out.write(start + b'"')
            for _ in range(SIZE // len(CHUNK)):
                out.write(CHUNK)
            out.write(b'"' + end + b"\n")
            out.flush()
        except BrokenPipeError:
            sys.exit(0)
        continue
    send({"jsonrpc": "2.0", "id": request["id"], "result": result(request)})
