"""One skill reader for agents' `skills:` preloading and for discovery (the skills plugin):
every folder, nearest first, failures reported without hiding the rest, resources listed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentframe_core import discover_skills, find_skill, skill_folders, skill_resources


def skill(folder: Path, name: str, description: str = "Does things.", body: str = "Steps.") -> Path:
    path = folder / name / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nname: {name}\ndescription: {description}\n---\n{body}\n")
    return path


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    return root


def test_every_folder_nearest_first_and_failures_reported(project: Path, tmp_path: Path) -> None:
    skill(project / ".agentframe/skills", "review", "Review a diff.")
    skill(project / ".claude/skills", "pdf", "Fill PDF forms.")
    skill(project / ".claude/skills", "review", "The farther review, hidden by the nearer.")
    skill(tmp_path / "home/.agentframe/skills", "commit", "Write commit messages.")
    extra = tmp_path / "extra"
    skill(extra, "deploy", "Deploy the app.")
    skill(extra, "Bad Name", "A name with spaces.")
    skill(extra, "nodesc", "")
    (extra / "broken").mkdir()
    (extra / "broken" / "SKILL.md").write_text("---\nname: [unclosed\n---\nbody\n")
    (extra / "binary").mkdir()
    (extra / "binary" / "SKILL.md").write_bytes(b"---\nname: bin\n---\n\xff\xfe\x00")
    os.mkfifo(extra / "fifo.md")
    scan = discover_skills(project, [extra])
    assert [s.name for s in scan.skills] == ["commit", "deploy", "pdf", "review"]
    assert next(s for s in scan.skills if s.name == "review").description == "Review a diff."
    failed = {p.parent.name if p.name == "SKILL.md" else p.name for p, _ in scan.failures}
    assert failed == {"Bad Name", "nodesc", "broken", "binary", "fifo.md"}
    assert all(why for _, why in scan.failures)


def test_agents_preload_from_claude_skills_too(project: Path) -> None:
    skill(project / ".claude/skills", "pdf", "Fill PDF forms.", "Use pdftk.")
    assert project / ".claude/skills" in skill_folders(project)
    found = find_skill("pdf", project)
    assert found is not None and found.instructions == "Use pdftk."


def test_resources_are_listed_relative_to_the_skill(project: Path) -> None:
    path = skill(project / ".agentframe/skills", "pdf")
    (path.parent / "scripts").mkdir()
    (path.parent / "scripts" / "fill.py").write_text("print()")
    (path.parent / "reference.md").write_text("# ref")
    (path.parent / ".hidden").write_text("x")
    found = find_skill("pdf", project)
    assert found is not None
    assert skill_resources(found) == ["reference.md", "scripts/fill.py"]


def test_a_display_name_is_kept_and_a_skill_folder_given_is_one_skill(
    project: Path, tmp_path: Path
) -> None:
    """As Claude Code's plugins write them: `name: Agent Development` in `agent-development/`,
    and a plugin's `skills` naming one skill's folder (whose other files are not skills)."""
    skill(project / ".claude/skills", "agent-development")
    path = project / ".claude/skills/agent-development/SKILL.md"
    path.write_text("---\nname: Agent Development\ndescription: Write agents.\n---\nSteps.\n")
    pptx = skill(tmp_path / "plugin/skills", "pptx").parent
    (pptx / "editing.md").write_text("How to edit a deck, read by the skill, not a skill.\n")
    scan = discover_skills(project, [pptx])
    assert [(s.name, s.display_name) for s in scan.skills] == [
        ("agent-development", "Agent Development"),
        ("pptx", None),
    ]
    assert scan.failures == []
