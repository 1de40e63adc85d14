"""Discovery: levels, nearness, loader priority, broken files, and the config's folders."""

from __future__ import annotations

import types
from pathlib import Path
from typing import Any

import pytest

from agentframe_core import hookimpl
from agentframe_core.assembly.catalog import catalog_from_loaders, find_agents
from agentframe_core.assembly.config import load_config
from agentframe_core.assembly.plugins import PluginHost
from agentframe_core.contract.configtypes import Config
from agentframe_core.contract.definition import AgentDefinition
from agentframe_core.contract.errors import InvalidFieldError, UnknownAgentError
from agentframe_core.engine.definitions import parse_definition
from agentframe_core.parts.agentloader import AgentframeLoader

AGENTS = ".agentframe/agents"


@pytest.fixture
def host() -> PluginHost:
    return PluginHost()


@pytest.fixture
def config(project: Path, host: PluginHost) -> Config:
    file = project / "agentframe.yaml"
    file.write_text(
        "adapter: scripted\nstore: memory\ncontext: verbatim\n"
        "agents: [./team-agents, ./more-agents]\n"
    )
    return load_config(host, file)


def where(definition: AgentDefinition) -> tuple[str, Path | None]:
    return definition.source, definition.path


def test_shadowing_across_every_level(
    host: PluginHost, config: Config, project: Path, cwd: Path, home: Path, write_agent: Any
) -> None:
    near = write_agent(cwd / AGENTS, "shared", body="cwd")
    mid = write_agent(project / "pkg" / AGENTS, "shared", body="pkg")
    root = write_agent(project / AGENTS, "shared", body="root")
    user = write_agent(home / AGENTS, "shared", body="user")
    team = write_agent(project / "team-agents", "shared", body="team")
    more = write_agent(project / "more-agents", "shared", body="more")
    override = write_agent(project / "team-agents", "general-purpose", body="ours")

    catalog = find_agents(host, config, cwd)

    entry = catalog.entries["shared"]
    assert where(entry.definition) == ("project", near)
    assert [where(d) for d in entry.shadows] == [
        ("project", mid),
        ("project", root),
        ("user", user),
        ("config", team),
        ("config", more),
    ]
    assert entry.loader == "agentframe"
    general = catalog.entries["general-purpose"]
    assert where(general.definition) == ("config", override)
    assert [d.source for d in general.shadows] == ["builtin"]
    assert catalog.get("general-purpose").prompt == "ours"
    assert catalog.names() == ["general-purpose", "planner", "shared"]
    assert catalog.errors == [] and catalog.failures == []


def test_builtins_without_any_folder(host: PluginHost, cwd: Path) -> None:
    catalog = find_agents(host, None, cwd)
    assert catalog.names() == ["general-purpose", "planner"]
    assert all(d.source == "builtin" for d in catalog.definitions)
    assert catalog.get("planner").permission_mode == "plan"


def test_config_folders_need_the_config(
    host: PluginHost, project: Path, cwd: Path, write_agent: Any
) -> None:
    write_agent(project / "team-agents", "team-only")
    assert "team-only" not in find_agents(host, None, cwd).names()


def test_a_broken_file_is_skipped_and_reported_never_hiding_others(
    host: PluginHost, project: Path, cwd: Path, home: Path, write_agent: Any
) -> None:
    write_agent(cwd / AGENTS, "alpha", file="a.md")
    broken = write_agent(cwd / AGENTS, "shared", file="b.md", maxTurns="0")
    write_agent(cwd / AGENTS, "gamma", file="c.md")
    fallback = write_agent(home / AGENTS, "shared", body="from home")

    catalog = find_agents(host, None, cwd)

    assert {"alpha", "gamma", "shared"} <= set(catalog.names())
    # the broken project file does not shadow: the user's definition is used
    assert catalog.get("shared").path == fallback
    [error] = catalog.errors
    assert isinstance(error, InvalidFieldError)
    assert (error.file, error.line, error.name) == (broken, 4, "shared")


def test_get_reports_a_broken_definition_by_its_own_error(
    host: PluginHost, cwd: Path, write_agent: Any
) -> None:
    write_agent(cwd / AGENTS, "fragile", maxTurns="-2")
    with pytest.raises(InvalidFieldError, match="maxTurns"):
        find_agents(host, None, cwd).get("fragile")


def test_get_unknown_lists_known_names(host: PluginHost, cwd: Path) -> None:
    with pytest.raises(UnknownAgentError) as caught:
        find_agents(host, None, cwd).get("nope")
    assert caught.value.known == ["general-purpose", "planner"]
    assert "known agents: general-purpose, planner" in str(caught.value)
    assert isinstance(caught.value, LookupError)


def test_outside_a_repository_only_the_working_directory_counts(
    tmp_path: Path, host: PluginHost, write_agent: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    outer = tmp_path / "plain"
    inner = outer / "inner"
    inner.mkdir(parents=True)
    write_agent(outer / AGENTS, "outer")
    write_agent(inner / AGENTS, "inner")
    names = find_agents(host, None, inner).names()
    assert "inner" in names and "outer" not in names


def test_home_inside_the_project_is_read_once(
    host: PluginHost, home: Path, write_agent: Any
) -> None:
    (home / ".git").mkdir()
    write_agent(home / AGENTS, "homely")
    entry = find_agents(host, None, home).entries["homely"]
    assert entry.definition.source == "project" and entry.shadows == ()


class FakeCompatLoader:
    """A lower-priority loader, like agentframe-compat's, reading from its own folder."""

    priority = 50

    def __init__(self, files: list[Path]) -> None:
        self.files = files

    def discover(self, cwd: Path) -> list[AgentDefinition]:
        return [
            parse_definition(f.read_text(), f, source="project") for f in self.files if f.is_file()
        ]


def test_loader_priority_breaks_ties_nearness_wins_first(
    project: Path, cwd: Path, write_agent: Any
) -> None:
    ours_root = write_agent(project / AGENTS, "tie")
    theirs_root = write_agent(project / ".other/agents", "tie")
    theirs_cwd = write_agent(cwd / ".other/agents", "near")
    ours_root_near = write_agent(project / AGENTS, "near")
    compat = FakeCompatLoader([theirs_root, theirs_cwd])
    loaders = [("compat", compat), ("agentframe", AgentframeLoader())]

    catalog = catalog_from_loaders(loaders, cwd)

    tie = catalog.entries["tie"]
    assert (tie.loader, tie.definition.path) == ("agentframe", ours_root)
    assert [d.path for d in tie.shadows] == [theirs_root]
    near = catalog.entries["near"]
    assert (near.loader, near.definition.path) == ("compat", theirs_cwd)
    assert [d.path for d in near.shadows] == [ours_root_near]


def _plugin(**hooks: Any) -> types.ModuleType:
    module = types.ModuleType("fake_agent_plugin")
    for name, function in hooks.items():
        setattr(module, name, hookimpl(function))
    return module


def test_a_failing_loader_is_reported_and_the_others_still_work(
    host: PluginHost, cwd: Path, write_agent: Any
) -> None:
    class Exploding:
        def discover(self, cwd: Path) -> list[AgentDefinition]:
            raise RuntimeError("disk on fire")

    def boom_factory(_: Any) -> Any:
        raise OSError("cannot start")

    def agentframe_agent_loaders(register: Any) -> None:
        register("exploding", lambda _: Exploding())
        register("unbuildable", boom_factory)

    host.add("fake", _plugin(agentframe_agent_loaders=agentframe_agent_loaders))
    write_agent(cwd / AGENTS, "survivor")

    catalog = find_agents(host, None, cwd)

    assert "survivor" in catalog.names()
    assert sorted((f.loader, f.error) for f in catalog.failures) == [
        ("exploding", "RuntimeError: disk on fire"),
        ("unbuildable", "OSError: cannot start"),
    ]


def test_a_loader_with_only_discover_counts(host: PluginHost, cwd: Path, tmp_path: Path) -> None:
    file = tmp_path / "elsewhere.md"
    file.write_text("---\nname: plain\ndescription: From a discover-only loader\n---\nHi\n")

    def agentframe_agent_loaders(register: Any) -> None:
        register("plain", lambda _: FakeCompatLoader([file]))

    host.add("plain-plugin", _plugin(agentframe_agent_loaders=agentframe_agent_loaders))
    entry = find_agents(host, None, cwd).entries["plain"]
    assert entry.loader == "plain" and entry.definition.prompt == "Hi"
