"""Hook matchers as Claude Code reads them, on tool names as it spells them (agentframe's MCP
tools `mcp_server_tool` read as `mcp__server__tool`), malformed hooks blocks, and where
transcripts go."""

from __future__ import annotations

from pathlib import Path

import pytest
from agentframe_compat.hooks import parse_hooks
from agentframe_compat.names import claude_names
from agentframe_compat.project import ClaudeProject
from agentframe_compat.settings import SettingsError, SettingsSource
from agentframe_compat.transcript import transcript_path

SOURCE = SettingsSource(Path("/p/.claude/settings.json"), Path("/p"))


def project(matcher: str | None, event: str = "PreToolUse") -> ClaudeProject:
    group: dict[str, object] = {"hooks": [{"type": "command", "command": "true"}]}
    if matcher is not None:
        group["matcher"] = matcher
    return ClaudeProject(Path("/p"), parse_hooks({"hooks": {event: [group]}}, SOURCE))


@pytest.mark.parametrize(
    ("matcher", "tool", "fires"),
    [
        (None, "Bash", True),
        ("", "Read", True),
        ("*", "mcp_github_create_issue", True),
        ("Bash", "Bash", True),
        ("Bash", "BashOutput", False),  # a plain name matches exactly
        ("Edit|Write", "Write", True),
        ("Edit|Write", "Read", False),
        ("Notebook.*", "NotebookEdit", True),
        ("mcp__github__.*", "mcp_github_create_issue", True),
        ("mcp__github__create_issue", "mcp_github_create_issue", True),
        ("mcp__.*__write.*", "mcp_files_write_file", True),
        ("mcp__memory__.*", "mcp_github_create_issue", False),
        ("mcp__git_hub__.*", "mcp_git_hub_list", True),  # a server name holding `_`
    ],
)
def test_tool_matchers(matcher: str | None, tool: str, fires: bool) -> None:
    assert bool(project(matcher).hooks_for("PreToolUse", claude_names(tool))) is fires


def test_session_start_matches_its_source_and_stop_has_no_matcher() -> None:
    assert project("startup", "SessionStart").hooks_for("SessionStart", "startup")
    assert not project("startup", "SessionStart").hooks_for("SessionStart", "resume")
    assert project("Bash", "Stop").hooks_for("Stop")  # Claude Code ignores it there


@pytest.mark.parametrize(
    ("block", "named"),
    [
        ({"hooks": []}, "hooks: an object of events"),
        ({"hooks": {"PreToolUse": {}}}, "hooks.PreToolUse: a list"),
        ({"hooks": {"PreToolUse": [{"matcher": "(", "hooks": []}]}}, "hooks.PreToolUse[0].matcher"),
        ({"hooks": {"Stop": [{"hooks": [{"type": "command"}]}]}}, "hooks.Stop[0].hooks[0].command"),
        (
            {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": -1}]}]}},
            "hooks.Stop[0].hooks[0].timeout",
        ),
    ],
)
def test_a_malformed_hooks_block_names_file_and_path(block: dict, named: str) -> None:
    with pytest.raises(SettingsError, match=r"^/p/\.claude/settings\.json: ") as caught:
        parse_hooks(block, SOURCE)
    assert named in str(caught.value)


def test_a_transcript_stays_in_its_folder_whatever_the_session_id(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    folder = tmp_path / "agentframe" / "claude-transcripts"
    assert transcript_path("abc123") == folder / "abc123.jsonl"
    assert transcript_path("../../etc/x").parent == folder
