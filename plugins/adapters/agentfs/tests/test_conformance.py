"""`agentfs` passes the adapter conformance kit, with an agentframe drainer answering in another
process: one drainer per scenario, playing the scenario's example reply.

Every test gets its own context label (the test's id), so no test is served from another's
cached answer; within a test, repeats of one request are cache hits, as in real use.
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import yaml
from agentframe_agentfs import AgentFSAdapter, AgentFSOptions
from agentfs_procs import DrainerProcess, environment

from agentframe_core.testing import AdapterConformance
from agentframe_core.testing.conformance.adapter import Scenario

Pool = Callable[[Scenario], Path]


@pytest.fixture(scope="module")
def drainer_for(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pool]:
    """The folder of a drainer that answers every task with the scenario's example."""
    import subprocess
    import sys

    root = tmp_path_factory.mktemp("conformance")
    drainers: dict[str, DrainerProcess] = {}

    def folder(scenario: Scenario) -> Path:
        if scenario.name not in drainers:
            where = root / scenario.name
            where.mkdir()
            config = root / f"{scenario.name}.yaml"
            replies = {"use": "scripted", "cycle": True, "replies": [scenario.example]}
            config.write_text(yaml.safe_dump({"adapter": replies}))
            log = root / f"{scenario.name}.log"
            with open(log, "wb") as stderr:
                process = subprocess.Popen(
                    [sys.executable, "-m", "agentframe_core", "-v", "agent-mode", "serve",
                     "--config", str(config), "--dir", str(where), "--workers", "4",
                     "--heartbeat-interval", "0.2"],
                    stderr=stderr,
                    env=environment(root / "cache"),
                )  # fmt: skip
            drainers[scenario.name] = DrainerProcess(process, where, log).wait_ready()
        return drainers[scenario.name].folder

    yield folder
    for drainer in drainers.values():
        assert drainer.stop(signal.SIGTERM) == 0, drainer.log


class TestAgentFSTextTools(AdapterConformance):
    """The default: no native tools (the loop writes them into the prompt)."""

    @pytest.fixture
    def adapter(
        self, conformance_scenario: Scenario, drainer_for: Pool, request: pytest.FixtureRequest
    ) -> AgentFSAdapter:
        options = AgentFSOptions(
            dir=drainer_for(conformance_scenario),
            timeout_seconds=30,
            context_label=request.node.nodeid,
        )
        return AgentFSAdapter(options)


class TestAgentFSNativeTools(AdapterConformance):
    """`native_tools` and `json_schema`: tools and schema travel in the envelope."""

    @pytest.fixture
    def adapter(
        self, conformance_scenario: Scenario, drainer_for: Pool, request: pytest.FixtureRequest
    ) -> AgentFSAdapter:
        options = AgentFSOptions(
            dir=drainer_for(conformance_scenario),
            timeout_seconds=30,
            context_label=request.node.nodeid,
            native_tools=True,
            json_schema=True,
        )
        return AgentFSAdapter(options)
