"""Real MCP servers for the tests: mcp-server-time (PyPI, a test dependency), the reference
`@modelcontextprotocol/server-everything` (npm, installed once per test session), and
`servers/hostile.py` for the ways a server can misbehave."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from agentframe_mcp import McpOptions, McpToolset

from agentframe_core import MemoryStore, RunContext, Stack, VerbatimBuilder
from agentframe_core.testing import ScriptedAdapter

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))  # conformance_suite, shared by the tests of both sides

HOSTILE = str(HERE / "servers" / "hostile.py")
EVERYTHING = "@modelcontextprotocol/server-everything"


def time_config() -> dict[str, Any]:
    return {"command": sys.executable, "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"]}


@pytest.fixture(autouse=True)
def trusted(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every folder trusted, every project server approved, for the tests of one test each:
    these test servers, not trust; `test_trust.py` takes it away to test trust."""
    monkeypatch.setenv("AGENTFRAME_TRUST_ALL", "1")


@pytest.fixture
def ctx() -> RunContext:
    """A RunContext on a throwaway stack (the MCP toolset does not look at it)."""
    stack = Stack(adapter=ScriptedAdapter(), store=MemoryStore(), context=VerbatimBuilder())
    return RunContext("mcp-tests", stack)


@pytest.fixture
def time_server() -> dict[str, Any]:
    """mcp-server-time, run by this Python."""
    return time_config()


@pytest.fixture
def hostile() -> Callable[[str], dict[str, Any]]:
    """`servers/hostile.py MODE`."""

    def config(mode: str = "normal") -> dict[str, Any]:
        return {"command": sys.executable, "args": [HOSTILE, mode]}

    return config


@pytest.fixture
async def make_toolset() -> AsyncIterator[Callable[..., McpToolset]]:
    """Builds toolsets over inline servers; closes every one of them after the test."""
    made: list[McpToolset] = []

    def make(servers: dict[str, Any], **options: Any) -> McpToolset:
        toolset = McpToolset(McpOptions(project=False, servers=servers, **options))
        made.append(toolset)
        return toolset

    yield make
    await asyncio.gather(*(toolset.aclose() for toolset in made))


@pytest.fixture(scope="session")
def everything(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """server-everything installed once into a temp folder with npm, run with node."""
    npm, node = shutil.which("npm"), shutil.which("node")
    if npm is None or node is None:
        pytest.skip("node is absent (no `node`/`npm` on PATH): the npm MCP server cannot run")
    prefix = tmp_path_factory.mktemp("npm")
    done = subprocess.run(
        [npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund", EVERYTHING],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, f"npm install {EVERYTHING} failed:\n{done.stderr[-2000:]}"
    package = prefix / "node_modules" / "@modelcontextprotocol" / "server-everything"
    bin_field = json.loads((package / "package.json").read_text())["bin"]
    entry = bin_field if isinstance(bin_field, str) else next(iter(bin_field.values()))
    return {"command": node, "args": [str(package / entry), "stdio"]}
