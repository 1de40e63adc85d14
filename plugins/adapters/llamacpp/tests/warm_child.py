"""One agentframe process on a warm server: `python warm_child.py STATE_DIR KEEP_ALIVE MODE`.

`race`: print `ready`, wait for `go`, get the server, print its pid and exit (letting go).
`hold`: get the server, print its pid, and hold it until killed.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

from agentframe_llamacpp import LlamaRuntime
from agentframe_llamacpp.options import DEFAULT_MODEL
from agentframe_llamacpp.testing import options_for_tests


def main(state_dir: str, keep_alive: str, mode: str) -> None:
    options = options_for_tests(keep_alive=float(keep_alive))
    runtime = LlamaRuntime(options, state_dir=Path(state_dir))
    if mode == "race":
        print("ready", flush=True)
        assert sys.stdin.readline().strip() == "go"
    asyncio.run(runtime.ensure(DEFAULT_MODEL))
    print(runtime.servers[DEFAULT_MODEL].record.pid, flush=True)
    if mode == "hold":
        time.sleep(600)


if __name__ == "__main__":
    main(*sys.argv[1:])
