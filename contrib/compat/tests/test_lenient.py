"""Files Claude Code loads and strict YAML rejects load here too, warned; a file that still
cannot load is named by `agents list`, `skills list` and `commands list`; two plugins'
commands of one name both stay reachable. Public files (files/claude-plugins-official) and
files in their shape (files/lenient), through the real CLI."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from agentframe_compat.lenient import MAX_KEYS, split_lenient

from agentframe_core import AgentDefinitionError
from agentframe_core.testing import run_cli

FILES = Path(__file__).parent / "files"
OFFICIAL = FILES / "claude-plugins-official"


def test_multi_line_examples_are_the_description() -> None:
    path = FILES / "lenient/agent-writer.md"
    fm, notes = split_lenient(path.read_text(), path)
    description = fm.data["description"]
    assert description.startswith('Use this agent when the user asks to "write an agent"')
    assert 'user: "I need something that writes tests"' in description
    assert description.endswith("</example>")
    assert fm.data["tools"] == ["Write", "Read"] and fm.data["model"] == "inherit"
    assert fm.lines["description"] == 3 and fm.lines["model"] == 19 and fm.lines["tools.1"] == 21
    assert fm.body.startswith("You write agent definitions") and fm.body_line == 24
    assert notes == [
        f"{path}:3: description: not valid YAML (lines 3-18); read as text, as Claude Code "
        "does (quote the value, or write it as a `|` block, to silence this)"
    ]


def test_a_key_not_claude_codes_starts_a_key_only_outside_a_dialogue() -> None:
    text = (
        "---\nname: a\ndescription: when: always\n<example>\nowner: inside\n</example>\n"
        "owner: me\nnote: [x] y\n---\nbody\n"
    )
    fm, notes = split_lenient(text)
    assert fm.data["description"] == "when: always\n<example>\nowner: inside\n</example>"
    assert fm.data["owner"] == "me" and fm.data["note"] == "[x] y"
    assert [n.split(": ", 2)[1] for n in notes] == ["description", "note"]


def test_a_key_given_twice_is_said() -> None:
    fm, notes = split_lenient("---\nname: a\ndescription: x: y\nname: b\n---\n", Path("a.md"))
    assert fm.data["name"] == "b"
    assert (
        notes[1] == "a.md:4: name: given twice (also line 2); the last is used, as Claude Code does"
    )


def test_strict_yaml_is_untouched_and_unreadable_stays_an_error() -> None:
    fm, notes = split_lenient("---\nname: a\ndescription: 'ok: fine'\n---\n")
    assert fm.data == {"name": "a", "description": "ok: fine"} and notes == []
    with pytest.raises(AgentDefinitionError, match="never closed"):
        split_lenient("---\nname: a\ndescription: x: y\n")
    with pytest.raises(AgentDefinitionError):  # no key to hang the text on
        split_lenient("---\n<example>: x: y\nname: a\n---\n")


def test_hostile_frontmatter_is_bounded() -> None:
    keys = "".join(f"k{i}: v\n" for i in range(MAX_KEYS + 1))
    with pytest.raises(AgentDefinitionError, match=f"more than {MAX_KEYS} keys") as caught:
        split_lenient(f"---\ndescription: a: b\n{keys}---\n", Path("many.md"))
    assert caught.value.file == Path("many.md") and caught.value.line == MAX_KEYS + 2
    # An alias bomb in one key: the YAML reader refuses it at its node limit; read as text.
    bomb = ", ".join(
        f"&l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" if i else "&l0 [x, x, x, x, x, x, x, x, x]"
        for i in range(9)
    )
    fm, notes = split_lenient(f"---\nname: a\ndescription: a: b\nbomb: [{bomb}]\n---\n")
    assert isinstance(fm.data["bomb"], str) and any(": bomb: not valid YAML" in n for n in notes)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project with the files in its `.claude/` folders, as the issue measured them."""
    root = tmp_path / "project"
    agents, skills, commands = (root / ".claude" / p for p in ("agents", "skills", "commands"))
    agents.mkdir(parents=True)
    shutil.copy(FILES / "lenient/agent-writer.md", agents)
    shutil.copy(OFFICIAL / "pr-review-toolkit/agents/silent-failure-hunter.md", agents)
    (agents / "broken.md").write_text("---\nname: broken\ndescription: |\n  never closed\n")
    shutil.copytree(FILES / "lenient/skills", skills)
    (skills / "unnamed").mkdir()
    (skills / "unnamed/SKILL.md").write_text("---\nname: Unnamed\n---\nno description\n")
    for plugin in ("hookify", "ralph-loop"):
        (commands / plugin).mkdir(parents=True)
        shutil.copy(OFFICIAL / plugin / "commands/help.md", commands / plugin)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (tmp_path / "home").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # the user's ~/.claude stays out
    return root


def cli(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(project, *args)


def test_agents_list_loads_anthropics_files_and_names_the_broken_one(project: Path) -> None:
    listed = cli(project, "agents", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    found = {a["name"]: a for a in json.loads(listed.stdout)["agents"]}
    assert {"agent-writer", "silent-failure-hunter"} <= set(found)
    hunter = found["silent-failure-hunter"]
    assert any(":3: description: not valid YAML" in w for w in hunter["warnings"])
    errors = json.loads(listed.stdout)["errors"]
    assert [(Path(e["file"]).name, e["line"]) for e in errors] == [("broken.md", 1)]
    text = cli(project, "agents", "list")
    assert "skipped: " in text.stderr and "broken.md:1" in text.stderr
    assert "warning" in text.stdout and "agentframe agents show agent-writer" in text.stdout


def test_skills_list_keeps_a_display_name_and_names_the_unusable(project: Path) -> None:
    listed = cli(project, "skills", "list", "--json")
    data = json.loads(listed.stdout)
    assert [(s["name"], s["display_name"]) for s in data["skills"]] == [
        ("hook-rules", "Writing Hook Rules")
    ]
    assert [Path(f["path"]).parent.name for f in data["failures"]] == ["unnamed"]
    assert "no description" in data["failures"][0]["error"] and listed.returncode == 1
    text = cli(project, "skills", "list")
    assert text.stdout.startswith("hook-rules (Writing Hook Rules)  ")
    assert "failed: " in text.stderr and "unnamed/SKILL.md" in text.stderr


def test_two_plugins_help_commands_are_both_reachable(project: Path) -> None:
    listed = cli(project, "commands", "list")
    assert listed.returncode == 0, listed.stderr
    assert "(as /ralph-loop:help)" in listed.stdout
    for plugin in ("hookify", "ralph-loop"):
        shown = cli(project, "commands", "show", f"{plugin}:help", "--json")
        assert shown.returncode == 0, shown.stderr
        assert json.loads(shown.stdout)["source"].endswith(f"{plugin}/help.md")
