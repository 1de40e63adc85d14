"""Every agent, skill and command of public Claude Code plugin collections loads.

Point `AGENTFRAME_CC_COLLECTIONS` at checkouts of collections (separated by `:`), e.g.
anthropics/claude-plugins-official, anthropics/claude-code, anthropics/skills,
wshobson/agents, VoltAgent/awesome-claude-code-subagents; each is installed as Claude Code
installs it (its marketplaces, then every other `.claude-plugin/plugin.json` folder), and
every agent file, skill file and command file its plugins offer must load, with no file
reported as failed, and every command must be reachable by a name. Without the variable the
test is skipped (the collections are not part of this repository: licences, size).
Set `AGENTFRAME_CC_COLLECTIONS_REPORT` to a file to get the counts as JSON.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import agentframe_compat.plugin as compat
import pytest
from agentframe_compat import ClaudeLoader
from agentframe_compat.plugins import (
    MANIFEST,
    MARKETPLACE,
    PluginError,
    add_plugins,
    installed_plugins,
    plugin_parts,
    remove_plugin,
)

from agentframe_core import PluginHost, discover_skills, find_commands, find_skill

COLLECTIONS = [Path(p) for p in os.environ.get("AGENTFRAME_CC_COLLECTIONS", "").split(":") if p]
#: Folders a collection keeps copies or scaffolding in, not plugins to install.
NOT_PLUGINS = {"node_modules", ".git", "backups", "templates"}


def _manifests(root: Path, name: str) -> Iterator[Path]:
    """The folders holding `name` (`.claude-plugin/...`) under `root`, outside NOT_PLUGINS."""
    for top, dirs, _files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in NOT_PLUGINS)
        if (Path(top) / name).is_file():
            yield Path(top)


def install(root: Path) -> list[str]:
    """Install the collection's plugins; what was not installed, and why."""
    skipped: list[str] = []
    for market in _manifests(root, MARKETPLACE):
        try:
            skipped += add_plugins(market)[1]
        except PluginError as err:
            skipped.append(str(err))
    for plugin in installed_plugins():
        if not plugin.root.is_dir():  # a marketplace's source naming no folder
            remove_plugin(plugin.name)
            skipped.append(f"{plugin.name}: no folder {plugin.root}")
    installed = {plugin.root for plugin in installed_plugins()}
    for folder in _manifests(root, MANIFEST):
        if folder.resolve() not in installed:
            try:
                add_plugins(folder)
            except PluginError as err:
                skipped.append(str(err))
    return skipped


@pytest.mark.skipif(not COLLECTIONS, reason="AGENTFRAME_CC_COLLECTIONS names no collection")
@pytest.mark.parametrize("root", COLLECTIONS, ids=[p.name for p in COLLECTIONS])
def test_every_file_of_a_public_collection_loads(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    project = tmp_path / "project"
    project.mkdir()
    skipped = install(root)
    plugins = installed_plugins()
    parts = [plugin_parts(plugin) for plugin in plugins]

    agents = ClaudeLoader().scan(project)
    agent_files = {path for part in parts for path in part.agents}
    assert [str(e) for e in agents.errors] == []
    assert {d.path for d in agents.definitions} == agent_files

    skill_folders = [folder for part in parts for folder in part.skills if folder.is_dir()]
    skills = discover_skills(project, skill_folders)
    assert [f"{path}: {why}" for path, why in skills.failures] == []
    names = {skill.name for skill in skills.skills}
    skill_files = {path for folder in skill_folders for path in _skill_files(folder)}
    for path in skill_files:  # each loads; a name two plugins give is listed once
        skill = find_skill(str(path), project, also=skill_folders)
        assert skill is not None and skill.name in names, path

    host = PluginHost()
    host.add("compat", compat)
    # Only compat's commands: the mcp plugin would start the plugins' MCP servers to list
    # their prompts, which is not what this test is about.
    monkeypatch.setattr(host, "entry_points", dict)
    catalog = find_commands(host, project)
    commands = [*catalog.commands.values(), *(c for s in catalog.shadowed.values() for c in s)]
    command_files = {
        path for part in parts for folder in part.commands for path in _markdown(folder)
    }
    assert catalog.errors == []
    assert {Path(c.source) for c in commands} == command_files
    unreachable = [
        c.source for c in commands if catalog.find(c.name) is not c and catalog.alias_of(c) is None
    ]
    assert unreachable == []

    report = dict(
        not_installed=len(skipped),
        plugins=len(plugins),
        agents={"files": len(agent_files), "loaded": len(agents.definitions)},
        skills={"files": len(skill_files), "names": len(names)},
        commands={"files": len(command_files), "loaded": len(commands)},
        lenient_agents=sum(
            any("not valid YAML" in w for w in d.warnings) for d in agents.definitions
        ),
        display_named_skills=sum(s.display_name is not None for s in skills.skills),
    )
    out = os.environ.get("AGENTFRAME_CC_COLLECTIONS_REPORT")
    if out:
        with open(out, "a") as file:
            file.write(json.dumps({root.name: report}) + "\n")


def _skill_files(folder: Path) -> list[Path]:
    """The skill files of a plugin's skills folder (or of the one skill it names)."""
    if (folder / "SKILL.md").is_file():
        return [folder / "SKILL.md"]
    entries = [e / "SKILL.md" if e.is_dir() else e for e in folder.iterdir()]
    return [e for e in entries if e.suffix == ".md" and e.is_file() and not e.name.startswith(".")]


def _markdown(folder: Path) -> list[Path]:
    if folder.is_file():
        return [folder]
    return [p for p in folder.rglob("*.md") if p.is_file()]
