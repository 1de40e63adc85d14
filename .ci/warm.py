"""CI: fetch what the tests install for themselves (the Phoenix OTLP receiver, about 850 MB,
and the MCP conformance suite with node 22, from npm), in the background while llama-server
builds, so no test waits for a download. Each installer is the tests' own, locked and cached:
a test that gets there first waits for this one, and if this one fails the test installs
again and fails with the reason.

    python .ci/warm.py        (needs the kernel and pytest installed, nothing else)
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "contrib" / "mcp" / "tests"), str(ROOT / "contrib" / "otel" / "tests")]

from conformance_suite import install  # noqa: E402  (the tests' own installers)

from conftest import phoenix_python  # noqa: E402


def main() -> int:
    failed = 0
    for name, fetch in (("MCP conformance suite", install), ("Phoenix", phoenix_python)):
        started = time.monotonic()
        try:
            fetch()
        except Exception as err:  # the tests install again and report it
            print(f"warm: {name} failed: {type(err).__name__}: {err}", flush=True)
            failed = 1
            continue
        print(f"warm: {name} ready in {time.monotonic() - started:.0f} s", flush=True)
    return failed


if __name__ == "__main__":
    raise SystemExit(main())
