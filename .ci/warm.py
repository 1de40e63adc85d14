"""CI: fetch what the tests install for themselves (the Phoenix OTLP receiver, about 850 MB,
and the MCP conformance suite with node 22, from npm), in the background while llama-server
builds, so no test waits for a download. Each installer is the tests' own, locked and cached:
a test that gets there first waits for this one, and if this one fails the test installs
again and fails with the reason.

    python .ci/warm.py        (needs the kernel and pytest installed, nothing else)
"""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def _module(name: str, path: Path) -> ModuleType:
    """A test helper module, by its path (two test folders have a `conftest`)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> int:
    suite = _module("conformance_suite", ROOT / "contrib/mcp/tests/conformance_suite.py")
    receiver = _module("otel_conftest", ROOT / "contrib/otel/tests/conftest.py")
    failed = 0
    for name, fetch in (
        ("MCP conformance suite", suite.install),
        ("Phoenix", receiver.phoenix_python),
    ):
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
