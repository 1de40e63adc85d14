"""The assembled system prompt is reused across sessions, and assembled again when a file it
was made of changes (issue 12, item 19)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentframe_core import AgentDefinition
from agentframe_core.engine.prompt import assemble_system_prompt
from agentframe_core.engine.promptcache import cached_system_prompt, clear

TOOLS = {"add": "add"}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    clear()
    (tmp_path / ".git").mkdir()
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    return tmp_path / "pkg" / "sub"


def _bump(path: Path) -> None:
    """Make sure the mtime moves, whatever the file system's granularity."""
    stamp = path.stat().st_mtime_ns + 10_000_000
    os.utime(path, ns=(stamp, stamp))


def test_the_cached_prompt_is_the_assembled_one_and_is_reused(repo: Path) -> None:
    (repo.parent.parent / "AGENTS.md").write_text("Use tabs.")
    first = cached_system_prompt(None, TOOLS, cwd=repo)
    assert first == assemble_system_prompt(None, TOOLS, cwd=repo) and "Use tabs." in first
    assert cached_system_prompt(None, TOOLS, cwd=repo) is first


def test_an_edited_agents_md_is_seen(repo: Path) -> None:
    agents_md = repo.parent.parent / "AGENTS.md"
    agents_md.write_text("Use tabs.")
    assert "Use tabs." in cached_system_prompt(None, TOOLS, cwd=repo)
    agents_md.write_text("Use spaces, four.")
    _bump(agents_md)
    assert "Use spaces, four." in cached_system_prompt(None, TOOLS, cwd=repo)


def test_a_new_agents_md_nearer_the_working_directory_is_seen(repo: Path) -> None:
    assert "Project instructions" not in cached_system_prompt(None, TOOLS, cwd=repo)
    (repo.parent / "AGENTS.md").write_text("Nearer rules.")
    _bump(repo.parent)
    assert "Nearer rules." in cached_system_prompt(None, TOOLS, cwd=repo)


def test_a_removed_repository_marker_is_seen(repo: Path) -> None:
    (repo.parent.parent / "AGENTS.md").write_text("Root rules.")
    assert "Root rules." in cached_system_prompt(None, TOOLS, cwd=repo)
    (repo.parent.parent / ".git").rmdir()  # no repository: only the working directory counts
    _bump(repo.parent.parent)
    assert "Root rules." not in cached_system_prompt(None, TOOLS, cwd=repo)


def test_an_edited_skill_is_seen(repo: Path) -> None:
    skills = repo / ".agentframe" / "skills"
    skills.mkdir(parents=True)
    (skills / "review.md").write_text("Check the tests first.")
    agent = AgentDefinition(name="reviewer", description="r", prompt="Review.", skills=["review"])
    assert "Check the tests first." in cached_system_prompt(agent, TOOLS, cwd=repo)
    (skills / "review.md").write_text("Check the docs first.")
    _bump(skills / "review.md")
    assert "Check the docs first." in cached_system_prompt(agent, TOOLS, cwd=repo)
    (skills / "review").mkdir()  # a folder skill now shadows the single file
    (skills / "review" / "SKILL.md").write_text("Folder skill wins.")
    _bump(skills)
    assert "Folder skill wins." in cached_system_prompt(agent, TOOLS, cwd=repo)


def test_other_tools_or_agents_get_their_own_prompt(repo: Path) -> None:
    plain = cached_system_prompt(None, TOOLS, cwd=repo)
    assert cached_system_prompt(None, {}, cwd=repo) != plain
    agent = AgentDefinition(name="helper", description="h", prompt="Be brief.")
    assert "Be brief." in cached_system_prompt(agent, TOOLS, cwd=repo)
