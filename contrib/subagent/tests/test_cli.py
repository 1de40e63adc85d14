"""The CLI with `use: subagents`: a Claude Code agent file, a real SQLite store, children
visible through `sessions list --children` and `sessions show`, the tree in `run --json`,
one progress line per child on stderr (and none with --json)."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from agentframe_core.testing import run_cli


def _project(tmp_path: Path, delegations: int) -> Path:
    agents = tmp_path / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "helper.md").write_text(
        "---\nname: helper\ndescription: Answers questions briefly.\ntools: add\n---\n"
        "You answer in one word.\n"
    )
    call = {"tool_calls": [{"name": "subagent", "arguments": {"agent": "helper", "task": "hi"}}]}
    child = {"content": "child answer", "usage": {"prompt_tokens": 11, "completion_tokens": 2}}
    parent = {"content": "parent done", "usage": {"prompt_tokens": 5, "completion_tokens": 1}}
    config = {
        "adapter": {"use": "scripted", "replies": [call, child, parent] * delegations},
        "store": {"use": "sqlite", "path": str(tmp_path / "sessions.db")},
        "context": {"use": "verbatim"},
        "tools": [{"use": "subagents"}],
    }
    (tmp_path / "agentframe.yaml").write_text(yaml.safe_dump(config))
    return tmp_path


def test_run_json_shows_the_tree_and_sessions_point_at_children(tmp_path: Path) -> None:
    cwd = _project(tmp_path, 1)
    done = run_cli(cwd, "run", "--json", "delegate")
    assert done.returncode == 0, done.stderr
    assert "sub-agent" not in done.stderr  # --json stays clean
    result = json.loads(done.stdout)
    (record,) = result["tool_calls"]
    (child,) = record["meta"]["children"]
    assert record["result"] == "child answer" and child["agent"] == "helper"
    assert result["usage"]["children"]["prompt_tokens"] == 11
    assert result["usage"]["total"]["prompt_tokens"] == 11 + result["usage"]["prompt_tokens"]

    listed = run_cli(cwd, "sessions", "list", "--children", "--json")
    assert listed.returncode == 0, listed.stderr
    (only,) = json.loads(listed.stdout)
    assert only["id"] == child["session_id"]
    assert only["parent"]["parent"] == result["session_id"]
    assert only["parent"]["tool_call_id"] == record["id"]
    assert only["parent"]["agent"] == "helper"
    everything = json.loads(run_cli(cwd, "sessions", "list", "--json").stdout)
    assert len(everything) == 2

    shown = run_cli(cwd, "sessions", "show", result["session_id"])
    assert f"child session {child['session_id']} (helper, done)" in shown.stdout


def test_run_shows_one_line_per_child_on_stderr(tmp_path: Path) -> None:
    cwd = _project(tmp_path, 1)
    done = run_cli(cwd, "run", "delegate")
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if "sub-agent" in line]
    assert len(lines) == 1 and "sub-agent helper: done" in lines[0]
    assert "parent done" in done.stdout


def test_a_child_cannot_run_a_tool_its_parent_is_denied(tmp_path: Path) -> None:
    """issue 23 #2: the parent agent may use `add` and `subagent`, never `write_marker`;
    delegating to the built-in general-purpose agent (no tool list of its own) ran it."""
    marker = tmp_path / "marker.txt"
    (tmp_path / "markertools.py").write_text(
        "from pathlib import Path\n\n\n"
        "def write_marker() -> str:\n"
        '    """Write the marker file."""\n'
        f"    Path({str(marker)!r}).write_text('written')\n"
        "    return 'written'\n"
    )
    agents = tmp_path / ".agentframe" / "agents"
    agents.mkdir(parents=True)
    (agents / "boss.md").write_text(
        "---\nname: boss\ndescription: Delegates.\ntools: [add, subagent]\n"
        "disallowedTools: [write_marker]\n---\nDelegate.\n"
    )
    delegate = {"agent": "general-purpose", "task": "write the marker"}
    replies = [
        {"tool_calls": [{"name": "subagent", "arguments": delegate}]},
        {"tool_calls": [{"name": "write_marker", "arguments": {}}]},  # the child tries
        "could not",
        "parent done",
    ]
    config = {
        "adapter": {"use": "scripted", "replies": replies},
        "store": {"use": "sqlite", "path": str(tmp_path / "sessions.db")},
        "context": {"use": "verbatim"},
        "tools": [
            {"use": "subagents"},
            {
                "use": "functions",
                "import": ["markertools:write_marker", "agentframe_core.examples:add"],
            },
        ],
    }
    (tmp_path / "agentframe.yaml").write_text(yaml.safe_dump(config))
    done = run_cli(tmp_path, "run", "--json", "--agent", "boss", "go")
    assert done.returncode == 0, done.stderr
    assert not marker.exists(), "the child ran a tool its parent is denied"
    (record,) = json.loads(done.stdout)["tool_calls"]
    child = record["meta"]["children"][0]["session_id"]
    shown = run_cli(tmp_path, "sessions", "show", child, "--json")
    assert shown.returncode == 0, shown.stderr
    assert "not allowed for agent 'general-purpose'" in shown.stdout
