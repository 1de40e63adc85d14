"""Sync tools that can be stopped: each call runs in a child process, killed at its timeout.

A plain `def` tool runs in a daemon thread (`functions.py`): a timeout frees the run and the
process at once, but Python cannot stop a thread, so the function runs on, with its side
effects, until it returns or the process exits. `tools: [{use: functions, import: [...],
isolate: true}]` runs each call of those imported functions here instead: a new Python process
(about 0.1-0.3 s to start) that imports the function by its reference, is given the arguments
as JSON on stdin and answers on stdout. Cancelling the call (a timeout, Ctrl-C) kills the
process and everything it started (its own process group). Arguments and the result must be
JSON; a function that takes a `RunContext` cannot be isolated.

The child side is `python -m agentframe_core.engine.isolatedchild`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

from ..contract.tools import ToolResult

__all__ = ["run_isolated"]

#: Bytes of output a child may send back (a result larger than this is an error).
MAX_OUTPUT = 16 * 1024 * 1024


async def run_isolated(
    reference: str, arguments: dict[str, Any], folder: Path | None = None
) -> ToolResult:
    """Call the function `reference` ("module:function", looked for in `folder` first) in a
    child process."""
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "agentframe_core.engine.isolatedchild",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        start_new_session=True,  # its own process group: killed with everything it started
    )
    try:
        where = str(folder) if folder is not None else None
        request = json.dumps(
            {"reference": reference, "arguments": arguments, "folder": where}
        ).encode()
        assert child.stdin is not None and child.stdout is not None
        child.stdin.write(request)
        await child.stdin.drain()
        child.stdin.close()
        output = await child.stdout.read(MAX_OUTPUT + 1)
        await child.wait()
    finally:
        if child.returncode is None:
            _kill(child.pid)
            await child.wait()
    return _result(reference, output, child.returncode)


def _kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _result(reference: str, output: bytes, code: int | None) -> ToolResult:
    if len(output) > MAX_OUTPUT:
        return ToolResult(f"{reference}: result larger than {MAX_OUTPUT} bytes", is_error=True)
    try:
        answer = json.loads(output)
        return ToolResult(str(answer["content"]), bool(answer["is_error"]))
    except (ValueError, KeyError, TypeError):
        return ToolResult(f"{reference}: the isolated call died (exit code {code})", is_error=True)
