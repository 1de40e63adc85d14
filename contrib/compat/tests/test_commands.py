"""Claude Code slash commands and plugins: real public files (tests/files/cc, SOURCES.md),
loaded unchanged and expanded as Claude Code would; hostile files refused or bounded,
named; and the CLI (`run "/cmd args"`, chat, `commands`, `cc-plugins`) as real processes."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from agentframe_compat import ClaudeCommands, ClaudeLoader, CommandLimits
from agentframe_compat.plugins import (
    PluginError,
    add_plugins,
    installed_plugins,
    plugin_parts,
    remove_plugin,
)

from agentframe_core import CommandError, SlashCommand
from agentframe_core.testing import run_cli

FILES = Path(__file__).parent / "files" / "cc"
ISSUE = FILES / "project/.claude/commands/tools/issue.md"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A home and data folder of our own: the user's ~/.claude and plugin registry stay out."""
    root = tmp_path_factory.mktemp("home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", str(root))
        patch.setenv("XDG_DATA_HOME", str(root / "data"))
        patch.delenv("AGENTFRAME_MODEL_ALIASES", raising=False)
        patch.delenv("AGENTFRAME_TOOL_ALIASES", raising=False)
        yield root


@pytest.fixture(scope="module")
def project(home: Path) -> Path:
    """A git repository holding the copied project commands and one file to reference."""
    root = home / "app"
    shutil.copytree(FILES / "project", root)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "notes.txt").write_text("the notes\n")
    return root


def expand(command: SlashCommand, arguments: str) -> str:
    return asyncio.run(command.expand(arguments))


def by_name(commands: list[SlashCommand]) -> dict[str, SlashCommand]:
    return {command.name: command for command in commands}


# -- real public files ----------------------------------------------------------------------


def test_real_project_commands_load_and_expand_as_claude_code(project: Path) -> None:
    scan = ClaudeCommands().scan(project)
    assert scan.errors == []
    found = by_name(scan.commands)
    assert set(found) == {"issue", "onboard"}
    issue = found["issue"]
    # A sub-folder labels the command, it does not rename it (Claude Code's convention).
    assert issue.namespace == "project:tools" and issue.aliases == ("tools:issue",)
    # A Claude model id would fail on another backend: the agent's model, said.
    assert issue.model is None and issue.level == "project"
    assert any(
        "tools/issue.md:2: model: 'claude-sonnet-4-0' is a Claude" in w for w in issue.warnings
    )
    assert issue.description == "Please analyze and fix the GitHub issue: $ARGUMENTS."
    body = ISSUE.read_text().split("---\n", 2)[2].strip()
    assert expand(issue, "42") == body.replace("$ARGUMENTS", "42")


def test_real_plugins_install_from_a_marketplace_and_offer_namespaced_commands(
    project: Path, home: Path
) -> None:
    added, skipped = add_plugins(FILES / "marketplace")
    assert [p.name for p in added] == ["commit-commands", "feature-dev", "example-plugin"]
    assert skipped == ["remote-one: not a local source (never fetched)"]
    assert [p.name for p in installed_plugins()] == [p.name for p in added]
    from agentframe_compat.commands import plugin_sources

    errors: list[str] = []
    scan = ClaudeCommands().scan(project, plugin_sources(errors))
    assert errors == [] and scan.errors == []
    found = by_name(scan.commands)
    assert {
        "commit-commands:commit",
        "commit-commands:commit-push-pr",
        "commit-commands:clean_gone",
        "feature-dev:feature-dev",
        "example-plugin:example-command",
    } <= set(found)
    example = found["example-plugin:example-command"]
    assert example.aliases == ("example-command",)
    assert example.argument_hint == "<required-arg> [optional-arg]"
    assert example.allowed_tools == ("Read", "Glob", "Grep", "Bash")
    assert "The user invoked this command with: one two" in expand(example, "one two")
    commit = found["commit-commands:commit"]
    assert commit.allowed_tools == ()  # only Bash(...) rules: no tool the model calls
    assert any("Bash(git add:*)" in w for w in commit.warnings)
    # The plugin's agents load through the claude agent loader, its skills are theirs.
    agents = {d.name: d for d in ClaudeLoader().scan(project).definitions}
    assert {"code-architect", "code-explorer", "code-reviewer"} <= set(agents)


def test_the_commit_commands_preamble_runs_its_permitted_git_programs(
    project: Path, tmp_path: Path
) -> None:
    """commit.md's `!`git status`` etc. run in the project and are replaced by their
    output; `git diff HEAD` and `git log` are read-only programs Claude Code runs too."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    (repo / "a.txt").write_text("one\n")
    subprocess.run([*git, "add", "a.txt"], check=True)
    subprocess.run([*git, "commit", "-qm", "first"], check=True)
    (repo / "a.txt").write_text("two\n")
    source = FILES / "marketplace/commit-commands/commands"
    scan = ClaudeCommands().scan(repo, [("commit-commands", source.parent, [source])])
    prompt = expand(by_name(scan.commands)["commit-commands:commit"], "")
    assert "!`" not in prompt
    assert "modified:   a.txt" in prompt  # git status
    assert "-one\n+two" in prompt  # git diff HEAD
    assert "Current branch: main" in prompt and "first" in prompt  # branch, log


# -- expansion rules ------------------------------------------------------------------------


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / ".claude/commands" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def repo(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project whose commands' programs may run (trusted: `test_trust.py` tests trust)."""
    monkeypatch.setenv("AGENTFRAME_TRUST_ALL", "1")
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    return root


def one(root: Path, limits: CommandLimits | None = None) -> SlashCommand:
    scan = ClaudeCommands(limits=limits).scan(root)
    assert scan.errors == []
    assert len(scan.commands) == 1
    return scan.commands[0]


def test_positional_arguments_and_appended_arguments(repo: Path) -> None:
    write(repo, "pr.md", "---\nargument-hint: [pr] [priority]\n---\nReview PR #$1 at $2 ($3).")
    command = one(repo)
    assert command.argument_hint == "[pr] [priority]"
    assert any("pr.md:2: argument-hint: not valid YAML" in w for w in command.warnings)
    assert expand(command, '456 "very high"') == "Review PR #456 at very high ()."
    write(repo, "pr.md", "Say hello.")
    assert expand(one(repo), "to Ann") == "Say hello.\n\nARGUMENTS: to Ann"


def test_arguments_are_substituted_once(repo: Path) -> None:
    write(repo, "echo.md", "---\nallowed-tools: Bash(echo:*)\n---\nA: $ARGUMENTS / $1")
    assert expand(one(repo), "$ARGUMENTS !`touch x` $1") == (
        "A: $ARGUMENTS !`touch x` $1 / $ARGUMENTS"
    )
    assert not (repo / "x").exists()


def test_a_template_bomb_is_refused_with_its_file_and_line(repo: Path) -> None:
    path = write(repo, "bomb.md", "intro\n" + "$ARGUMENTS" * 20_000)
    command = one(repo)
    with pytest.raises(
        CommandError, match=rf"{re.escape(str(path))}:2: the expanded prompt would exceed"
    ):
        expand(command, "x" * 100)


def test_a_10_mb_command_file_is_refused_named(repo: Path) -> None:
    path = write(repo, "huge.md", "x" * (10 << 20))
    scan = ClaudeCommands().scan(repo)
    assert scan.commands == []
    assert len(scan.errors) == 1 and str(path) in scan.errors[0] and "too large" in scan.errors[0]


def test_a_link_out_of_the_commands_folder_is_refused_named(repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("secret")
    folder = write(repo, "ok.md", "fine").parent
    (folder / "leak.md").symlink_to(outside)
    scan = ClaudeCommands().scan(repo)
    assert [c.name for c in scan.commands] == ["ok"]
    assert len(scan.errors) == 1 and f"{folder / 'leak.md'}: refused" in scan.errors[0]


def test_programs_run_only_when_allowed_tools_permits_them(repo: Path) -> None:
    path = write(repo, "p.md", "---\nallowed-tools: Bash(echo hi:*)\n---\nout: !`echo hi there`")
    assert expand(one(repo), "") == "out: hi there"
    for program in ("rm -rf notes", "echo hi; rm -rf notes", "echo hi > f", "echo hi $(id)"):
        write(repo, "p.md", f"---\nallowed-tools: Bash(echo hi:*)\n---\n\nout: !`{program}`")
        with pytest.raises(CommandError, match=rf"{re.escape(str(path))}:5: .* is not permitted"):
            expand(one(repo), "")
    write(repo, "p.md", "no tools: !`echo hi`")
    with pytest.raises(CommandError, match="not permitted"):
        expand(one(repo), "")
    assert not (repo / "f").exists()


def test_a_program_is_bounded_in_time_and_output(repo: Path) -> None:
    limits = CommandLimits(program_seconds=0.5, program_chars=1000)
    write(repo, "slow.md", "---\nallowed-tools: Bash\n---\n!`sleep 30`")
    prompt = asyncio.run(asyncio.wait_for(one(repo, limits).expand(""), 10))
    assert "timed out" in prompt.lower() or "timeout" in prompt.lower()
    write(repo, "loud.md", "---\nallowed-tools: Bash\n---\n!`yes | head -c 1000000`")
    (repo / ".claude/commands/slow.md").unlink()
    assert len(expand(one(repo, limits), "")) < 5000


def test_file_references_are_attached_confined_and_bounded(repo: Path, tmp_path: Path) -> None:
    (repo / "notes.txt").write_text("the notes\n")
    path = write(repo, "ref.md", "Read @notes.txt and mail me@example.com about @nothing.md")
    prompt = expand(one(repo), "")
    assert prompt.endswith('<file path="notes.txt">\nthe notes\n\n</file>')
    assert prompt.count("<file") == 1
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret")
    (repo / "link.txt").symlink_to(secret)
    write(repo, "ref.md", "line one\nsee @link.txt")
    with pytest.raises(
        CommandError, match=rf"{re.escape(str(path))}:2: @link\.txt: the file reference must be"
    ):
        expand(one(repo), "")
    (repo / "big.txt").write_text("x" * 300_000)
    write(repo, "ref.md", "see @big.txt")
    with pytest.raises(CommandError, match=r"@big\.txt: too large"):
        expand(one(repo), "")


def test_a_description_with_a_colon_loads_with_a_warning(repo: Path) -> None:
    """Claude Code accepts `description: Use when: ...`; strict YAML does not."""
    agents = repo / ".claude/agents"
    agents.mkdir(parents=True)
    (agents / "helper.md").write_text(
        "---\nname: helper\ndescription: Use when: the tests fail\n---\nHelp."
    )
    scan = ClaudeLoader().scan(repo)
    assert scan.errors == []
    (agent,) = [d for d in scan.definitions if d.name == "helper"]
    assert agent.description == "Use when: the tests fail"
    assert any(
        f"{agents / 'helper.md'}:3: description: not valid YAML" in w for w in agent.warnings
    )


def test_an_agent_name_with_dots_loads(repo: Path) -> None:
    agents = repo / ".claude/agents"
    agents.mkdir(parents=True)
    (agents / "vue.md").write_text("---\nname: vue.js-expert\ndescription: Vue.\n---\nVue.")
    scan = ClaudeLoader().scan(repo)
    assert scan.errors == [] and "vue.js-expert" in {d.name for d in scan.definitions}


# -- plugins: hostile manifests -------------------------------------------------------------


def test_a_plugin_json_pointing_outside_its_folder_is_refused_named(
    home: Path, tmp_path: Path
) -> None:
    plugin = tmp_path / "evil"
    (plugin / ".claude-plugin").mkdir(parents=True)
    manifest = plugin / ".claude-plugin/plugin.json"
    for field, value in (("commands", "../../etc"), ("agents", ["./ok", "/etc"])):
        manifest.write_text(json.dumps({"name": "evil", field: value}))
        with pytest.raises(PluginError, match=rf"{re.escape(str(manifest))}: {field}: "):
            add_plugins(plugin)
    assert "evil" not in [p.name for p in installed_plugins()]
    manifest.write_text(json.dumps({"name": "evil"}))
    (plugin / "commands").symlink_to(tmp_path)  # the default folder, a link out: refused
    with pytest.raises(PluginError, match=rf"{re.escape(str(plugin / 'commands'))}: a link out"):
        add_plugins(plugin)
    (plugin / "commands").unlink()
    (added,), _ = add_plugins(plugin)
    (plugin / "commands").symlink_to(tmp_path)  # made after `add`: every use refuses it
    with pytest.raises(PluginError, match=rf"{re.escape(str(manifest))}: commands: 'commands'"):
        plugin_parts(added)
    remove_plugin("evil")
    with pytest.raises(PluginError, match="no installed plugin 'evil'"):
        remove_plugin("evil")


# -- the CLI --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cli_project(project: Path) -> Path:
    (project / "agentframe.yaml").write_text(
        "adapter: {use: scripted, replies: [done], cycle: true}\n"
        "store: {use: sqlite}\n"
        "tools: [{use: functions, import: [agentframe_core.examples:add]}]\n"
    )
    return project


def test_cli_run_expands_a_command_and_lists_commands(cli_project: Path) -> None:
    listed = run_cli(cli_project, "commands", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    names = {c["name"] for c in json.loads(listed.stdout)["commands"]}
    assert {"issue", "onboard"} <= names
    shown = run_cli(cli_project, "commands", "show", "/issue")
    assert "namespace: project:tools" in shown.stdout and "is a Claude model" in shown.stdout
    ran = run_cli(cli_project, "run", "--json", "/issue 42")
    assert ran.returncode == 0, ran.stderr
    session = json.loads(ran.stdout)["session_id"]
    history = run_cli(cli_project, "sessions", "show", session, "--json")
    assert "Please analyze and fix the GitHub issue: 42." in history.stdout
    unknown = run_cli(cli_project, "run", "/nope 1")
    assert unknown.returncode == 1
    assert "unknown command /nope; commands: " in unknown.stderr and "/issue" in unknown.stderr


def test_cli_chat_builtins_and_an_unknown_command_never_reach_the_model(
    cli_project: Path,
) -> None:
    lines = "/help\n/session\n/tools\n/agents\n/x\n/new\n/issue 7\n/exit\n"
    chat = run_cli(cli_project, "chat", input=lines)
    assert chat.returncode == 0, chat.stderr
    out = chat.stdout
    assert "/new" in out and "/issue [" not in out and "/issue" in out  # help lists both
    assert "empty (nothing sent yet)" in out
    assert "add" in out  # /tools
    assert "general-purpose" in out and "planner" in out  # /agents
    assert "unknown command /x; commands: /help, /new" in chat.stderr
    assert "new session " in out
    assert out.count("done") == 1  # one model call: the /issue run; nothing else was sent


def test_cli_cc_plugins_add_list_remove(cli_project: Path) -> None:
    added = run_cli(cli_project, "cc-plugins", "add", str(FILES / "marketplace/commit-commands"))
    assert added.returncode == 0, added.stderr
    assert "added commit-commands" in added.stdout
    listed = run_cli(cli_project, "cc-plugins", "list", "--json")
    plugins = {p["name"]: p for p in json.loads(listed.stdout)["plugins"]}
    assert plugins["commit-commands"]["commands"]
    removed = run_cli(cli_project, "cc-plugins", "remove", "commit-commands")
    assert removed.returncode == 0 and "removed commit-commands" in removed.stdout


def test_a_marketplace_entry_stands_for_a_missing_plugin_json(home: Path, tmp_path: Path) -> None:
    """As in Claude Code (two plugins of anthropics/claude-plugins-official have none)."""
    market = tmp_path / "market"
    (market / ".claude-plugin").mkdir(parents=True)
    (market / "bare/commands").mkdir(parents=True)
    (market / "bare/commands/hi.md").write_text("Say hi.")
    entries = [{"name": "bare", "source": "./bare"}, {"name": "out", "source": "../elsewhere"}]
    (market / ".claude-plugin/marketplace.json").write_text(json.dumps({"plugins": entries}))
    with pytest.raises(PluginError, match=r"plugins\[1\]\.source: '\.\./elsewhere'"):
        add_plugins(market)
    entries.pop()
    (market / ".claude-plugin/marketplace.json").write_text(json.dumps({"plugins": entries}))
    added, _ = add_plugins(market)
    assert [(p.name, p.root) for p in added] == [("bare", (market / "bare").resolve())]
    from agentframe_compat.commands import plugin_sources

    scan = ClaudeCommands().scan(tmp_path, plugin_sources([]))
    assert "bare:hi" in {c.name for c in scan.commands}
    remove_plugin("bare")


def test_plugins_added_at_once_by_several_processes_are_all_kept(tmp_path: Path) -> None:
    """The registry is read, changed and written under a lock: no add is lost."""
    import sys

    roots = []
    for index in range(4):
        root = tmp_path / f"p{index}"
        (root / ".claude-plugin").mkdir(parents=True)
        (root / ".claude-plugin/plugin.json").write_text(json.dumps({"name": f"p{index}"}))
        roots.append(root)
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data")}
    script = (
        "import sys; from pathlib import Path; from agentframe_compat.plugins import "
        "add_plugins; add_plugins(Path(sys.argv[1]))"
    )
    children = [subprocess.Popen([sys.executable, "-c", script, str(r)], env=env) for r in roots]
    assert [child.wait(60) for child in children] == [0, 0, 0, 0]
    registry = json.loads((tmp_path / "data/agentframe/cc-plugins.json").read_text())
    assert sorted(p["name"] for p in registry["plugins"]) == ["p0", "p1", "p2", "p3"]
