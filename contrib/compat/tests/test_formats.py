"""Real-world agent files of Claude Code, pi and kigi, read as agentframe definitions."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from agentframe_compat import ClaudeLoader, CompatOptions, KigiLoader, PiLoader
from agentframe_compat.agentrules import agent_rules
from agentframe_compat.loaders import parse_pairs

from agentframe_core import MissingFieldError, PluginHost, assemble_system_prompt, find_agents
from agentframe_core.testing import run_cli

FILES = Path(__file__).parent / "files"


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("AGENTFRAME_MODEL_ALIASES", raising=False)
    monkeypatch.delenv("AGENTFRAME_TOOL_ALIASES", raising=False)
    monkeypatch.delenv("AGENTFRAME_CONFIG", raising=False)
    return home


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    monkeypatch.chdir(root)
    return root


def install(folder: str, target: Path) -> Path:
    """Copy one format's sample files into `target` (a `.claude/agents`-like folder)."""
    target.mkdir(parents=True, exist_ok=True)
    for file in (FILES / folder).glob("*.md"):
        shutil.copy(file, target / file.name)
    return target


def test_claude_code_reviewer() -> None:
    path = FILES / "claude/code-reviewer.md"
    agent = ClaudeLoader().load_file(path, "project")
    assert agent.name == "code-reviewer" and agent.source == "project"
    assert agent.tools == ["Read", "Grep", "Glob", "Bash"]
    assert agent.model is None and agent.adapter_model is None  # `sonnet` is not mapped
    assert agent.prompt.startswith("You are a senior code reviewer")
    assert agent.prompt_mode == "extend"
    assert agent.warnings == (
        f"{path}:5: model: model alias 'sonnet' names no model of this stack; the stack's model "
        'is used (map it with $AGENTFRAME_MODEL_ALIASES="sonnet=<model>")',
        f"{path}:6: color: unknown key, ignored",
    )


def test_claude_restrictions_are_narrowed_never_widened() -> None:
    path = FILES / "claude/orchestrator.md"
    agent = ClaudeLoader().load_file(path, "user")
    assert agent.tools == ["Read", "Edit"]  # Agent(worker, researcher) is left out
    assert agent.disallowed_tools == ["Write"]  # Bash(rm:*) is a rule the gate enforces
    denied = agent_rules(agent).refusal("Bash", {"command": "rm -rf build"}, path.parent)
    assert denied == "agent 'orchestrator' does not allow 'Bash(rm:*)' (disallowedTools)"
    assert agent_rules(agent).refusal("Bash", {"command": "ls"}, path.parent) is None
    assert agent.permission_mode == "dontAsk"
    assert agent.max_turns == 8 and agent.skills == ["pdf"] and agent.model == "inherit"
    notes = "\n".join(agent.warnings)
    assert (
        "'Agent(worker, researcher)': agentframe cannot limit a tool's arguments; left out" in notes
    )
    assert "Bash(rm:*)" not in notes
    assert f"{path}:7: permissionMode: 'bypassPermissions' is read as 'dontAsk'" in notes
    assert f"{path}:11: hooks: unknown key, ignored" in notes
    assert f"{path}:17: memory: unknown key, ignored" in notes


def test_claude_full_model_ids_are_kept() -> None:
    agent = ClaudeLoader().load_file(FILES / "claude/pinned-model.md", "project")
    assert agent.adapter_model == "claude-opus-4-5-20251101" and agent.warnings == ()


def test_claude_broken_file_is_a_typed_error() -> None:
    with pytest.raises(MissingFieldError) as caught:
        ClaudeLoader().load_file(FILES / "claude/no-description.md", "project")
    assert caught.value.field == "description" and caught.value.name == "no-description"


def test_model_and_tool_aliases_from_options_and_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    options = CompatOptions(
        model_aliases={"sonnet": "qwen2.5-coder-7b"},
        tool_aliases={"Read": "read_file", "Bash": "shell"},
    )
    agent = ClaudeLoader(options).load_file(FILES / "claude/code-reviewer.md", "project")
    assert agent.adapter_model == "qwen2.5-coder-7b"
    assert agent.tools == ["read_file", "Grep", "Glob", "shell"]
    monkeypatch.setenv("AGENTFRAME_MODEL_ALIASES", "sonnet=from-env, haiku=small")
    monkeypatch.setenv("AGENTFRAME_TOOL_ALIASES", "Grep=grep")
    agent = ClaudeLoader().load_file(FILES / "claude/code-reviewer.md", "project")
    assert agent.adapter_model == "from-env" and agent.tools == ["Read", "grep", "Glob", "Bash"]


def test_malformed_alias_pairs() -> None:
    assert parse_pairs(" a=b ,c = d,", "x") == {"a": "b", "c": "d"}
    with pytest.raises(ValueError, match="'nope' is not a name=value pair"):
        parse_pairs("a=b,nope", "$AGENTFRAME_MODEL_ALIASES")


def test_pi_scout() -> None:
    path = FILES / "pi/scout.md"
    agent = PiLoader().load_file(path, "project")
    assert agent.tools == ["read", "grep", "find", "ls", "bash"]
    assert agent.adapter_model == "claude-haiku-4-5"
    assert agent.skills == ["safe-bash", "repo-map"]  # pi's `skill:` is a comma-separated list
    assert agent.lines["skills"] == 7
    assert agent.warnings == (f"{path}:6: thinking: unknown key, ignored",)


def test_pi_provider_model_ids_are_kept() -> None:
    agent = PiLoader().load_file(FILES / "pi/writer.md", "user")
    assert agent.adapter_model == "anthropic/claude-3-5-sonnet"
    assert agent.tools == ["read", "write"]


def test_kigi_common_subset() -> None:
    path = FILES / "kigi/researcher.md"
    agent = KigiLoader().load_file(path, "project")
    assert agent.tools == ["web_search", "web_fetch"] and agent.adapter_model == "gpt-4o"
    assert agent.prompt == "Find primary sources, quote them, link them."
    assert agent.warnings == (f"{path}:6: temperature: unknown key, ignored",)


def test_compat_ranks_below_agentframe_at_the_same_level(project: Path) -> None:
    ours = project / ".agentframe/agents/code-reviewer.md"
    ours.parent.mkdir(parents=True)
    ours.write_text("---\nname: code-reviewer\ndescription: Ours.\n---\nOur reviewer.\n")
    install("claude", project / ".claude/agents")
    install("pi", project / ".pi/agents")
    install("kigi", project / ".kigi/agents")

    catalog = find_agents(PluginHost(), None, project)

    entry = catalog.entries["code-reviewer"]
    assert (entry.loader, entry.definition.path) == ("agentframe", ours)
    assert [(d.source, d.path) for d in entry.shadows] == [
        ("project", project / ".claude/agents/code-reviewer.md")
    ]
    assert catalog.entries["scout"].loader == "pi"
    assert catalog.entries["researcher"].loader == "kigi"
    assert catalog.entries["orchestrator"].loader == "claude"
    [broken] = catalog.errors
    assert broken.file == project / ".claude/agents/no-description.md"


def test_a_nearer_compat_file_wins_over_a_farther_agentframe_file(project: Path) -> None:
    ours = project / ".agentframe/agents/writer.md"
    ours.parent.mkdir(parents=True)
    ours.write_text("---\nname: writer\ndescription: Ours, at the root.\n---\n")
    here = project / "docs"
    install("pi", here / ".pi/agents")
    entry = find_agents(PluginHost(), None, here).entries["writer"]
    assert entry.loader == "pi" and [d.path for d in entry.shadows] == [ours]


def test_user_level_compat_folders(home: Path, project: Path) -> None:
    install("claude", home / ".claude/agents")
    install("pi", home / ".pi/agent/agents")
    catalog = find_agents(PluginHost(), None, project)
    assert catalog.entries["code-reviewer"].definition.source == "user"
    assert catalog.entries["writer"].definition.path == home / ".pi/agent/agents/writer.md"


def test_prompt_of_a_claude_agent(project: Path) -> None:
    install("claude", project / ".claude/agents")
    agent = find_agents(PluginHost(), None, project).get("code-reviewer")
    names = agent.tool_names(["Read", "Grep", "Write"])
    prompt = assemble_system_prompt(agent, names, cwd=project)
    assert "- Read\n- Grep\n" in prompt and "- Write" not in prompt
    assert prompt.index("# Environment") < prompt.index("You are a senior code reviewer")


def test_agents_check_reads_a_file_in_its_own_format(project: Path) -> None:
    folder = install("claude", project / ".claude/agents")
    result = run_cli(project, "agents", "check", str(folder / "orchestrator.md"))
    # the Claude loader read it: bypassPermissions was translated, with a warning
    assert "'bypassPermissions' is read as 'dontAsk'" in result.stdout
    # the skill `pdf` does not exist here: that is an error, and the exit code says so
    assert "skill 'pdf' not found" in result.stdout and result.returncode == 1
    # Claude Code keeps skills in .claude/skills/<name>/SKILL.md: found there, it is fine
    skill = project / ".claude/skills/pdf/SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: pdf\ndescription: Work with PDF files.\n---\nUse pdftotext.\n")
    result = run_cli(project, "agents", "check", str(folder / "orchestrator.md"))
    assert result.returncode == 0, result.stdout + result.stderr


def test_skills_in_the_formats_own_folders(project: Path, home: Path) -> None:
    install("pi", project / ".pi/agents")
    install("claude", project / ".claude/agents")
    safe_bash = home / ".pi/agent/skills/safe-bash/SKILL.md"
    repo_map = project / ".pi/skills/repo-map/SKILL.md"
    pdf = project / ".claude/skills/pdf/SKILL.md"
    for file in (safe_bash, repo_map, pdf):
        file.parent.mkdir(parents=True)
        file.write_text(f"---\ndescription: The {file.parent.name} skill.\n---\nSteps.\n")
    catalog = find_agents(PluginHost(), None, project)
    scout = catalog.get("scout")
    assert scout.skills == [str(safe_bash), str(repo_map)]
    assert catalog.get("orchestrator").skills == [str(pdf)]
    prompt = assemble_system_prompt(scout, {}, cwd=project)
    assert "## safe-bash\n\nThe safe-bash skill." in prompt
    assert "## repo-map\n\nThe repo-map skill." in prompt
