"""The official MCP conformance suite's server scenarios against `agentframe mcp serve
--http`: every scenario the 2025-11-25 revision requires passes, except those listed in
`conformance/server-not-applicable.yml` (the suite's own fixture tools, prompts and
resources), which the README lists too."""

from __future__ import annotations

import subprocess
from pathlib import Path

import yaml
from conformance_suite import SUITE_VERSION, suite_command
from serving import serve_http, stop, write_project

HERE = Path(__file__).parent
NOT_APPLICABLE = HERE / "conformance" / "server-not-applicable.yml"
REVISION = "2025-11-25"


def test_every_server_scenario_that_applies_passes(tmp_path: Path) -> None:
    suite = suite_command()  # before the server starts: the first install takes a minute
    process, url = serve_http(write_project(tmp_path / "project"), "-a", "helper")
    try:
        done = subprocess.run(
            [
                *suite,
                "server",
                "--url",
                url,
                "--requirements",
                REVISION,
                "--expected-failures",
                str(NOT_APPLICABLE),
                "-o",
                str(tmp_path / "results"),
            ],
            capture_output=True,
            text=True,
            timeout=150,
            check=False,
        )
    finally:
        stop(process)
    summary = done.stdout[done.stdout.find("=== SUMMARY") :]
    assert done.returncode == 0, f"conformance {SUITE_VERSION}:\n{summary}\n{done.stderr[-2000:]}"
    assert "Baseline check passed" in done.stdout, summary


def test_the_readme_lists_each_scenario_that_does_not_apply() -> None:
    readme = (HERE.parent / "README.md").read_text()
    listed = yaml.safe_load(NOT_APPLICABLE.read_text())["server"]
    missing = [entry for entry in listed if f"`{entry.split(':')[0]}`" not in readme]
    assert not missing, f"README.md does not list {missing}"
    assert SUITE_VERSION in readme
