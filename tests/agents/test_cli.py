"""`agentframe agents list|show|check`, run through the real CLI entry point."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from agentframe_core.cli import cli

DEFINITIONS = Path(__file__).parent / "definitions"
AGENTS = ".agentframe/agents"

STACK = """\
adapter: scripted
store: memory
context: verbatim
tools:
  - use: functions
    import: [agentframe_core.examples:add, agentframe_core.examples:current_time]
"""


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture
def config(project: Path) -> Path:
    file = project / "agentframe.yaml"
    file.write_text(STACK)
    return file


def test_list_shows_source_path_and_shadows(
    cwd: Path, project: Path, home: Path, write_agent: Any
) -> None:
    mine = write_agent(cwd / AGENTS, "helper")
    theirs = write_agent(home / AGENTS, "helper")
    broken = write_agent(cwd / AGENTS, "broken", maxTurns="zero")

    result = run("agents", "list")

    assert result.exit_code == 0
    out = result.stdout
    assert "helper  [project]  The helper agent" in out
    assert f"    {mine}\n    shadows [user] {theirs}\n" in out
    assert "general-purpose  [builtin]" in out and "planner  [builtin]" in out
    assert f"skipped: {broken}:4: maxTurns:" in result.stderr


def test_list_json(cwd: Path, home: Path, write_agent: Any) -> None:
    mine = write_agent(cwd / AGENTS, "helper")
    theirs = write_agent(home / AGENTS, "helper")
    write_agent(cwd / AGENTS, "broken", promptMode="sideways")

    data = json.loads(run("agents", "list", "--json").stdout)

    helper = next(a for a in data["agents"] if a["name"] == "helper")
    assert helper == {
        "name": "helper",
        "source": "project",
        "folder": str(mine.parent),
        "path": str(mine),
        "description": "The helper agent",
        "loader": "agentframe",
        "shadows": [
            {"name": "helper", "source": "user", "folder": str(theirs.parent), "path": str(theirs)}
        ],
        "replaces_builtin": False,
        "warnings": [],
    }
    [error] = data["errors"]
    assert (error["type"], error["line"], error["field"]) == ("InvalidFieldError", 4, "promptMode")
    assert data["loader_failures"] == []


def test_show_with_the_configured_stacks_tools(cwd: Path, config: Path, write_agent: Any) -> None:
    write_agent(
        cwd / AGENTS,
        "adder",
        tools="[add, current_time, missing]",
        disallowedTools="current_time",
        toolNameOverrides="{add: plus}",
        body="Add things.",
    )

    result = run("-c", str(config), "agents", "show", "adder")

    assert result.exit_code == 0, result.output
    out = result.stdout
    assert out.startswith("# adder\n# source: project (agentframe loader)\n")
    assert "toolNameOverrides:\n  plus" not in out and "toolNameOverrides:\n  add: plus" in out
    assert "# tools this agent can use: add as plus\n" in out
    prompt = out[out.index("# system prompt\n") :]
    assert "You can call these tools:\n- plus\n" in prompt
    assert prompt.rstrip().endswith("Add things.")


def test_show_reports_an_override_the_stack_cannot_satisfy(
    cwd: Path, config: Path, write_agent: Any
) -> None:
    write_agent(cwd / AGENTS, "wrong", toolNameOverrides="{subtract: minus}")
    result = run("-c", str(config), "agents", "show", "wrong")
    assert result.exit_code == 1
    assert "toolNameOverrides.subtract: tool 'subtract' is unknown" in result.stderr
    assert "# system prompt" in result.stdout  # everything else is still shown


def test_show_says_clearly_when_the_stack_cannot_be_built(
    cwd: Path, project: Path, write_agent: Any
) -> None:
    bad = project / "agentframe.yaml"
    bad.write_text("adapter: no-such-adapter\nstore: memory\ncontext: verbatim\n")
    write_agent(cwd / AGENTS, "lonely")

    result = run("-c", str(bad), "agents", "show", "lonely")

    assert result.exit_code == 0
    assert "note: the configured stack could not be built" in result.stderr
    assert "unknown adapter 'no-such-adapter'" in result.stderr
    assert "as if no tool were available" in result.stderr
    assert "You have no tools in this session" in result.stdout


def test_show_json(cwd: Path, config: Path) -> None:
    data = json.loads(run("-c", str(config), "agents", "show", "planner", "--json").stdout)
    assert data["source"] == "builtin" and data["loader"] == "agentframe"
    assert data["definition"]["permissionMode"] == "plan"
    assert data["tools"] == {"add": "add", "current_time": "current_time"}
    assert data["errors"] == [] and data["tools_note"] == ""
    assert "You are in planning mode" in data["system_prompt"]


def test_show_unknown_agent(cwd: Path) -> None:
    result = run("agents", "show", "ghost")
    assert result.exit_code == 1
    assert "unknown agent 'ghost'; known agents: general-purpose, planner" in result.stderr


def test_check_valid_files_with_warnings() -> None:
    result = run("agents", "check", str(DEFINITIONS / "valid"))
    assert result.exit_code == 0, result.output
    assert result.stdout.count("ok: ") == 6
    assert "warning: " in result.stdout and "color: unknown key, ignored" in result.stdout
    assert "6 file(s) checked: 0 with errors, 4 warning(s)" in result.stdout


def test_check_broken_files_exits_nonzero_naming_each() -> None:
    broken = sorted((DEFINITIONS / "broken").glob("*.md"))
    result = run("agents", "check", *map(str, broken))
    assert result.exit_code == 1
    for path in broken:
        assert f"error: {path}:" in result.stdout
    assert f"{len(broken)} file(s) checked: {len(broken)} with errors" in result.stdout


def test_check_everything_visible(cwd: Path, write_agent: Any) -> None:
    write_agent(cwd / AGENTS, "fine")
    write_agent(cwd / AGENTS, "needs-skill", skills="[absent]")
    broken = write_agent(cwd / AGENTS, "broken", tools="{a: 1}")

    result = run("agents", "check")

    assert result.exit_code == 1
    out = result.stdout
    assert f"error: {broken}:4: tools:" in out
    assert "skills: skill 'absent' not found" in out
    assert "ok: " in out and "(fine)" in out and "(general-purpose)" in out


def test_check_json(cwd: Path, write_agent: Any) -> None:
    write_agent(cwd / AGENTS, "fine", colour="red")
    data = json.loads(run("agents", "check", "--json").stdout)
    assert data["ok"] is True
    fine = next(f for f in data["files"] if f["name"] == "fine")
    assert fine["errors"] == [] and "colour: unknown key" in fine["warnings"][0]
