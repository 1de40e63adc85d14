"""Settings for every test of the repository, and what each test needs, in one place.

A test's needs are marked here, by the fixtures that provide them (a real model, PostgreSQL,
a browser, node) or by the folders whose tests start real processes, so that no test file has
to say it and none can forget. The markers are registered in `pyproject.toml`; the fast lane
for development leaves the heavy ones out:

    pytest -m "not model and not postgres and not browser and not node and not slow"
"""

from __future__ import annotations

import os
from fnmatch import fnmatch
from pathlib import Path

import pytest

# Servers that `agentframe run` starts in the tests' subprocesses stop when those exit (a warm
# llama-server per test cache would outlive the suite); tests of warm servers set their own.
os.environ.setdefault("AGENTFRAME_LLAMA_KEEP_ALIVE", "0")

ROOT = Path(__file__).parent

#: The fixtures that bring each need with them.
NEEDS_BY_FIXTURE = {
    "model": {"llama_runtime", "llama_url", "llama_tools_url", "small_window"},
    "postgres": {"postgres_dsn", "pg_store"},
    "browser": {"browser"},
}

#: Test modules (paths from the repository root; `*` matches across folders) and what they
#: need that no fixture says: a real model reached through the CLI, node and npm, minutes.
NEEDS_BY_MODULE = {
    "model": ["*/test_real_model.py", "plugins/adapters/llamacpp/tests/*.py"],
    "node": ["contrib/mcp/tests/test_conformance_*.py", "contrib/mcp/tests/test_everything_*.py"],
    "slow": [],
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        for need, names in NEEDS_BY_FIXTURE.items():
            if fixtures & names:
                item.add_marker(need)
        try:
            where = item.path.relative_to(ROOT).as_posix()
        except ValueError:
            continue
        for need, patterns in NEEDS_BY_MODULE.items():
            if any(fnmatch(where, p) for p in patterns):
                item.add_marker(need)
