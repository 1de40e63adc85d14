"""The kernel's own loader passes the AgentLoader conformance kit."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentframe_core import AgentScan
from agentframe_core.contract.errors import AgentDefinitionError
from agentframe_core.engine.definitions import AgentFolder
from agentframe_core.parts.agentloader import AgentframeLoader
from agentframe_core.testing import AgentLoaderConformance
from agentframe_core.testing.conformance.agents import AgentLayout


class TestAgentframeLoader(AgentLoaderConformance):
    layout = AgentLayout(project=".agentframe/agents", user=".agentframe/agents")

    @pytest.fixture
    def loader(self) -> AgentframeLoader:
        return AgentframeLoader()


class _Kit(AgentLoaderConformance):
    layout = AgentLayout(project=".agentframe/agents", user=".agentframe/agents")


class FarthestFirst(AgentframeLoader):
    """Wrong: lists the repository root's folder before the working directory's."""

    def folders(self, cwd: Path) -> list[AgentFolder]:
        found = super().folders(cwd)
        project = [f for f in found if f.level == "project"]
        return [*reversed(project), *(f for f in found if f.level != "project")]


class StopsAtFirstError(AgentframeLoader):
    """Wrong: one broken file hides everything."""

    def scan(self, cwd: Path) -> AgentScan:
        found = super().scan(cwd)
        if found.errors:
            raise found.errors[0]
        return found


def test_the_kit_catches_a_loader_that_prefers_far_folders(project: Path, cwd: Path) -> None:
    with pytest.raises(AssertionError):
        _Kit().test_nearer_project_folder_wins(FarthestFirst(), project, cwd)


def test_the_kit_catches_a_loader_that_stops_at_a_broken_file(project: Path, cwd: Path) -> None:
    with pytest.raises(AgentDefinitionError):
        _Kit().test_broken_file_is_skipped_not_hiding_others(
            StopsAtFirstError(), project, cwd, "bad-yaml"
        )
