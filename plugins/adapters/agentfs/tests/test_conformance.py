"""`agentfs` passes the adapter conformance kit, with an agentframe drainer answering in another
process: one drainer per scenario, playing the scenario's example reply (a tool call as text
for the adapter without native tools, as a drainer for it answers).

Every test gets its own context label (the test's id), so no test is served from another's
cached answer; within a test, repeats of one request are cache hits, as in real use.
"""

from __future__ import annotations

import json
import signal
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from agentframe_agentfs import AgentFSAdapter, AgentFSOptions
from agentfs_procs import DrainerProcess, environment

from agentframe_core.testing import AdapterConformance, Scenario

Pool = Callable[[Scenario, bool], Path]


def as_text(example: dict[str, Any]) -> dict[str, Any]:
    """The scenario's reply as a drainer for an adapter without native tools gives it: a tool
    call in the text the loop parses."""
    calls = example.get("tool_calls")
    if not calls:
        return example
    (call,) = calls
    return {"content": json.dumps({"tool": call["name"], "args": call["arguments"]})}


@pytest.fixture(scope="module")
def drainer_for(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pool]:
    """The folder of a drainer that answers every task with the scenario's example."""
    import subprocess
    import sys

    root = tmp_path_factory.mktemp("conformance")
    drainers: dict[str, DrainerProcess] = {}

    def folder(scenario: Scenario, native: bool) -> Path:
        example = scenario.example if native else as_text(scenario.example)
        name = scenario.name if example is scenario.example else f"{scenario.name}-text"
        if name not in drainers:
            where = root / name
            where.mkdir()
            config = root / f"{name}.yaml"
            replies = {"use": "scripted", "cycle": True, "replies": [example]}
            config.write_text(yaml.safe_dump({"adapter": replies}))
            log = root / f"{name}.log"
            with open(log, "wb") as stderr:
                process = subprocess.Popen(
                    [sys.executable, "-m", "agentframe_core", "-v", "agent-mode", "serve",
                     "--config", str(config), "--dir", str(where), "--workers", "4",
                     "--heartbeat-interval", "0.2"],
                    stderr=stderr,
                    env=environment(root / "cache"),
                )  # fmt: skip
            drainers[name] = DrainerProcess(process, where, log).wait_ready()
        return drainers[name].folder

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
            dir=drainer_for(conformance_scenario, False),
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
            dir=drainer_for(conformance_scenario, True),
            timeout_seconds=30,
            context_label=request.node.nodeid,
            native_tools=True,
            json_schema=True,
        )
        return AgentFSAdapter(options)
