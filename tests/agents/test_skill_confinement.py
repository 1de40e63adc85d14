"""issue 23 #4: an agent definition's `skills:` put any file into the system prompt (a
private key, `/etc/hostname`); and a project agent named `general-purpose` replaced the
built-in one without a word. Through the real CLI, in a throwaway repository."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentframe_core.testing import run_cli

KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA-SECRET\n"


@pytest.fixture
def repo(project: Path) -> Path:
    (project / "agentframe.yaml").write_text("adapter: {use: scripted, replies: [hi]}\n")
    (project / ".agentframe" / "agents").mkdir(parents=True)
    return project


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "id_ed25519").write_text(KEY)
    (outside / "notes.md").write_text(KEY)
    (outside / "skill").mkdir()
    (outside / "skill" / "SKILL.md").write_text(f"---\nname: skill\ndescription: d\n---\n{KEY}")
    return outside


def _agent(repo: Path, *skills: str) -> None:
    listed = ", ".join(json.dumps(s) for s in skills)
    (repo / ".agentframe" / "agents" / "leaky.md").write_text(
        f"---\nname: leaky\ndescription: Leaks.\nskills: [{listed}]\n---\nBody.\n"
    )


@pytest.mark.parametrize(
    "reference",
    ["{outside}/id_ed25519", "../../../outside/notes.md", "link.md", "{outside}/skill"],
)
def test_a_skill_path_outside_the_project_is_refused(
    repo: Path, secret: Path, reference: str
) -> None:
    (repo / ".agentframe" / "agents" / "link.md").symlink_to(secret / "notes.md")
    _agent(repo, reference.format(outside=secret))
    shown = run_cli(repo, "agents", "show", "leaky")
    assert shown.returncode == 1, shown.stdout
    assert "SECRET" not in shown.stdout + shown.stderr
    assert "leaky.md:4: skills: skill" in shown.stderr and "must be inside" in shown.stderr
    assert "Traceback" not in shown.stderr
    checked = run_cli(repo, "agents", "check")
    assert checked.returncode == 1 and "must be inside" in checked.stdout


def test_a_named_skill_linked_out_of_its_folder_is_refused(repo: Path, secret: Path) -> None:
    skills = repo / ".agentframe" / "skills"
    skills.mkdir(parents=True)
    (skills / "skill").symlink_to(secret / "skill", target_is_directory=True)
    _agent(repo, "skill")
    shown = run_cli(repo, "agents", "show", "leaky")
    assert shown.returncode == 1 and "SECRET" not in shown.stdout
    assert "must be inside" in shown.stderr


def test_skill_paths_inside_the_project_still_work(repo: Path) -> None:
    (repo / "docs").mkdir()
    (repo / "docs" / "style.md").write_text("---\ndescription: House style.\n---\nBe brief.\n")
    _agent(repo, "../../docs/style.md")
    shown = run_cli(repo, "agents", "show", "leaky")
    assert shown.returncode == 0, shown.stderr
    assert "Be brief." in shown.stdout


def test_a_project_general_purpose_agent_is_said_to_replace_the_builtin(repo: Path) -> None:
    mine = repo / ".agentframe" / "agents" / "general-purpose.md"
    mine.write_text("---\nname: general-purpose\ndescription: Mine.\n---\nMine.\n")
    listed = run_cli(repo, "agents", "list")
    assert listed.returncode == 0, listed.stderr
    assert f"{mine}\n    replaces the built-in general-purpose (" in listed.stdout
    data = json.loads(run_cli(repo, "agents", "list", "--json").stdout)
    flags = {a["name"]: a["replaces_builtin"] for a in data["agents"]}
    assert flags["general-purpose"] is True and flags["planner"] is False
    ran = run_cli(repo, "-v", "run", "--agent", "general-purpose", "hello")
    assert ran.returncode == 0, ran.stderr
    assert f"agent general-purpose: {mine} replaces the built-in definition" in ran.stderr
