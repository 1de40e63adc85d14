"""System prompt assembly: both modes, conditionals, literal braces, AGENTS.md, skills."""

from __future__ import annotations

import os
import platform
from datetime import date
from pathlib import Path

import pytest

from agentframe_core.contract.definition import AgentDefinition
from agentframe_core.contract.errors import AgentParseError, AgentTemplateError, UnknownSkillError
from agentframe_core.engine.definitions import load_definition, parse_definition
from agentframe_core.engine.prompt import agents_md_files, assemble_system_prompt

VALID = Path(__file__).parent / "definitions" / "valid"
TODAY = date(2025, 3, 9)


def agent(text: str, path: Path | None = None) -> AgentDefinition:
    return parse_definition(text, path)


def full(body: str, **keys: str) -> AgentDefinition:
    extra = "".join(f"{k}: {v}\n" for k, v in keys.items())
    return agent(
        f"---\nname: t\ndescription: d\npromptMode: full\nagentsMd: false\n{extra}---\n{body}"
    )


def test_no_agent_is_the_base_template(cwd: Path) -> None:
    prompt = assemble_system_prompt(None, {"add": "add", "read_file": "Read"}, cwd=cwd, today=TODAY)
    assert prompt.startswith("You are an AI agent.")
    assert "- add\n- Read\n" in prompt
    assert f"- Working directory: {cwd}" in prompt
    assert "- Today's date: 2025-03-09" in prompt
    assert f"- Operating system: {platform.system()}" in prompt
    assert f"- Shell: {os.environ.get('SHELL') or '/bin/sh'}" in prompt
    assert "${{" not in prompt and "${%" not in prompt


def test_base_template_without_tools(cwd: Path) -> None:
    prompt = assemble_system_prompt(None, {}, cwd=cwd, today=TODAY)
    assert "You have no tools in this session" in prompt
    assert "You can call these tools" not in prompt


def test_extend_puts_base_body_agents_md_skills_then_format_in_order(
    project: Path, cwd: Path
) -> None:
    (project / "AGENTS.md").write_text("Root rules.\n")
    skill = project / ".agentframe/skills/tidy/SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: tidy\ndescription: Keep things tidy.\n---\nSort imports.\n")
    definition = agent(
        "---\nname: e\ndescription: d\nskills: [tidy]\noutputFormat: concise\n---\nBODY TEXT\n"
    )
    prompt = assemble_system_prompt(definition, {}, cwd=cwd, today=TODAY)
    marks = ["You are an AI agent.", "BODY TEXT", "Root rules.", "## tidy", "# Output format"]
    positions = [prompt.index(mark) for mark in marks]
    assert positions == sorted(positions)


def test_extend_body_is_not_a_template(cwd: Path) -> None:
    """Prose quoting GitHub Actions syntax stays as written in extend mode."""
    body = "Use ${{ secrets.TOKEN }} in the workflow, and {{ name }} in Mustache."
    definition = agent(f"---\nname: e\ndescription: d\n---\n{body}\n")
    assert body in assemble_system_prompt(definition, {}, cwd=cwd, today=TODAY)


def test_full_template_conditionals_and_literal_braces(cwd: Path) -> None:
    definition = load_definition(VALID / "full-template.md")
    names = definition.tool_names(["read_file", "bash", "write_file"])
    assert names == {"read_file": "Read", "bash": "bash"}
    prompt = assemble_system_prompt(definition, names, cwd=cwd, today=TODAY)
    assert prompt.startswith(
        f"You are a careful assistant on {platform.system()}, working in {cwd}."
    )
    assert "Today is 2025-03-09." in prompt
    assert "Read files with Read.\n" in prompt
    assert "Run commands with bash (shell:" in prompt
    assert "write files" not in prompt  # write_file is not in its allowlist
    assert "This comment" not in prompt
    assert "look like {{ user.name }} or {% if x %}; leave them alone." in prompt
    assert "${" not in prompt
    assert "You are an AI agent." not in prompt  # full mode: no base template
    # an unavailable tool makes its block drop out, leaving no blank line behind
    only_read = assemble_system_prompt(definition, {"read_file": "Read"}, cwd=cwd, today=TODAY)
    assert "Run commands" not in only_read
    assert "Read files with Read.\nTemplates in the user's code" in only_read


def test_iterating_tools_in_a_template(cwd: Path) -> None:
    definition = full("${% for t in tools %}[${{ t }}->${{ tools[t] }}]${% endfor %}")
    prompt = assemble_system_prompt(definition, {"a": "A", "b": "b"}, cwd=cwd, today=TODAY)
    assert prompt == "[a->A][b->b]\n"


def test_rendering_is_deterministic(project: Path, cwd: Path) -> None:
    (cwd / "AGENTS.md").write_text("Near.\n")
    definition = load_definition(VALID / "full-template.md")
    names = {"read_file": "Read", "bash": "bash"}
    first = assemble_system_prompt(definition, names, cwd=cwd, today=TODAY)
    assert all(
        assemble_system_prompt(definition, names, cwd=cwd, today=TODAY) == first for _ in range(5)
    )


def test_template_runtime_error_names_its_line(cwd: Path, tmp_path: Path) -> None:
    path = tmp_path / "div.md"
    path.write_text(
        "---\nname: div\ndescription: d\npromptMode: full\n---\none\ntwo\n${{ 1 // 0 }}\n"
    )
    definition = load_definition(path)  # compiles fine: the error is at render time
    with pytest.raises(AgentTemplateError) as caught:
        assemble_system_prompt(definition, {}, cwd=cwd, today=TODAY)
    err = caught.value
    assert (err.file, err.line, err.template_line) == (path, 8, 3)
    assert "ZeroDivisionError" in err.message


def test_the_sandbox_refuses_unsafe_attributes(cwd: Path) -> None:
    definition = full("${{ working_directory.__class__.__mro__ }}")
    with pytest.raises(AgentTemplateError, match="unsafe"):
        assemble_system_prompt(definition, {}, cwd=cwd, today=TODAY)


def test_agents_md_from_root_down_to_cwd(project: Path, cwd: Path) -> None:
    (project / "AGENTS.md").write_text("Root.\n")
    (cwd.parent / "AGENTS.md").write_text("Package.\n")
    (cwd / "AGENTS.md").write_text("Here.\n")
    (project.parent / "AGENTS.md").write_text("Outside the repository.\n")
    assert agents_md_files(cwd) == [
        project / "AGENTS.md",
        cwd.parent / "AGENTS.md",
        cwd / "AGENTS.md",
    ]
    prompt = assemble_system_prompt(None, {}, cwd=cwd, today=TODAY)
    assert prompt.index("## AGENTS.md\n\nRoot.") < prompt.index("## pkg/AGENTS.md\n\nPackage.")
    assert prompt.index("Package.") < prompt.index("## pkg/sub/AGENTS.md\n\nHere.")
    assert "Outside the repository" not in prompt


def test_agents_md_can_be_turned_off(project: Path, cwd: Path) -> None:
    (project / "AGENTS.md").write_text("Root.\n")
    definition = agent("---\nname: q\ndescription: d\nagentsMd: false\n---\nBody\n")
    assert "Root." not in assemble_system_prompt(definition, {}, cwd=cwd, today=TODAY)


def test_skills_by_name_folder_file_home_and_path(
    project: Path, cwd: Path, home: Path, tmp_path: Path
) -> None:
    folder_skill = project / ".agentframe/skills/review/SKILL.md"
    folder_skill.parent.mkdir(parents=True)
    folder_skill.write_text("---\nname: review\ndescription: Review code.\n---\nCheck tests.\n")
    (folder_skill.parent / "checklist.md").write_text("- tests\n")
    single = cwd / ".agentframe/skills/lint.md"
    single.parent.mkdir(parents=True)
    single.write_text("Run the linter.\n")  # no frontmatter: the name is the file's stem
    personal = home / ".agentframe/skills/style/SKILL.md"
    personal.parent.mkdir(parents=True)
    personal.write_text("---\ndescription: House style.\n---\nShort sentences.\n")
    definitions = tmp_path / "defs"
    (definitions / "skills").mkdir(parents=True)
    (definitions / "skills/local.md").write_text("---\nname: local-one\n---\nLocal steps.\n")
    path = definitions / "agent.md"
    path.write_text(
        "---\nname: s\ndescription: d\nagentsMd: false\n"
        "skills: [review, lint, style, ./skills/local.md]\n---\nBody\n"
    )

    prompt = assemble_system_prompt(load_definition(path), {}, cwd=cwd, today=TODAY)

    section = prompt[prompt.index("# Skills") :]
    assert section.index("## review") < section.index("## lint") < section.index("## style")
    assert section.index("## style") < section.index("## local-one")
    assert "Review code.\n\nThis skill's files are in `.agentframe/skills/review`" in section
    assert "Check tests." in section and "Run the linter." in section
    assert "## style\n\nHouse style.\n\nThis skill's files are in `" in section
    assert "Short sentences." in section and "## local-one\n\nLocal steps." in section


def test_nearer_skill_wins(project: Path, cwd: Path) -> None:
    for base, text in ((project, "far"), (cwd, "near")):
        file = base / ".agentframe/skills/pick.md"
        file.parent.mkdir(parents=True)
        file.write_text(text)
    definition = agent("---\nname: s\ndescription: d\nskills: pick\n---\n")
    prompt = assemble_system_prompt(definition, {}, cwd=cwd, today=TODAY)
    assert "near" in prompt and "far" not in prompt


def test_missing_skill_is_a_typed_error_with_the_line(cwd: Path, tmp_path: Path) -> None:
    path = tmp_path / "a.md"
    path.write_text("---\nname: s\ndescription: d\nskills:\n  - here\n  - nowhere\n---\n")
    (cwd / ".agentframe/skills").mkdir(parents=True)
    (cwd / ".agentframe/skills/here.md").write_text("ok")
    with pytest.raises(UnknownSkillError) as caught:
        assemble_system_prompt(load_definition(path), {}, cwd=cwd, today=TODAY)
    assert (caught.value.file, caught.value.line) == (path, 6)
    assert "skill 'nowhere' not found" in caught.value.message


def test_broken_skill_file_is_a_parse_error(cwd: Path) -> None:
    file = cwd / ".agentframe/skills/bad/SKILL.md"
    file.parent.mkdir(parents=True)
    file.write_text("---\nname: [oops\n---\n")
    definition = agent("---\nname: s\ndescription: d\nskills: bad\n---\n")
    with pytest.raises(AgentParseError) as caught:
        assemble_system_prompt(definition, {}, cwd=cwd, today=TODAY)
    assert caught.value.file == file


def test_every_key_prompt(project: Path, cwd: Path) -> None:
    (project / "AGENTS.md").write_text("Root rules.\n")
    definition = load_definition(VALID / "every-key.md")
    names = definition.tool_names(["read_file", "grep", "bash", "submit"])
    prompt = assemble_system_prompt(definition, names, cwd=cwd, today=TODAY)
    assert "- Read\n- Search\n- submit\n" in prompt and "- bash" not in prompt
    assert "Root rules." not in prompt  # agentsMd: false
    skill = VALID / "skills" / "code-review"
    assert (
        f"## code-review\n\nHow this team reviews code.\n\nThis skill's files are in `{skill}`"
        in prompt
    )
    assert prompt.index("You check everything twice.") < prompt.index("## code-review")
    assert prompt.rstrip().endswith("offers of further help.")


def test_a_literal_dollar_brace_is_written_as_a_string(cwd: Path) -> None:
    definition = full('Write ${{ "${{" }} secrets.TOKEN }} in the workflow.')
    prompt = assemble_system_prompt(definition, {}, cwd=cwd, today=TODAY)
    assert prompt == "Write ${{ secrets.TOKEN }} in the workflow.\n"


def test_claude_md_and_its_imports_are_read_like_agents_md(
    project: Path, cwd: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """CLAUDE.md (project and ~/.claude), `@path` imports: relative, at most 5 hops deep,
    each file once (a cycle ends), confined to the project and ~/.claude, never in code."""
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    (home / ".claude/CLAUDE.md").write_text("Mine.\n")
    (project / "AGENTS.md").write_text("Root.\n")
    (project / "CLAUDE.md").write_text("Claude root, see @docs/a.md and `@docs/code.md`.\n")
    (project / "docs").mkdir()
    (project / "docs/code.md").write_text("In code.\n")
    for index in range(7):  # a.md -> b.md -> ... -> g.md: 7 hops
        name, following = "abcdefg"[index], "abcdefgh"[index + 1]
        (project / f"docs/{name}.md").write_text(f"Hop {index + 1}, then @{following}.md\n")
    secret = tmp_path / "secret.md"
    secret.write_text("Secret.\n")
    (project / "docs/c.md").write_text(f"Hop 3, back to @a.md, out to @{secret}, on to @d.md\n")
    (cwd / "CLAUDE.md").write_text("Here, see @../../docs/a.md again.\n")
    files = agents_md_files(cwd)
    assert files[:3] == [home / ".claude/CLAUDE.md", project / "AGENTS.md", project / "CLAUDE.md"]
    assert [p.name for p in files[3:]] == ["a.md", "b.md", "c.md", "d.md", "e.md", "CLAUDE.md"]
    prompt = assemble_system_prompt(None, {}, cwd=cwd, today=TODAY)
    assert "## ~/.claude/CLAUDE.md\n\nMine." in prompt
    assert prompt.index("## AGENTS.md\n\nRoot.") < prompt.index("## CLAUDE.md\n\nClaude root")
    assert "## docs/e.md\n\nHop 5" in prompt and "Hop 6" not in prompt  # depth 5
    assert "In code." not in prompt and "Secret." not in prompt
    assert "These instruction files apply" in prompt
    assert prompt.index("Hop 5") < prompt.index("## pkg/sub/CLAUDE.md\n\nHere")
