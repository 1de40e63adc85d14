"""The permission rules through `agentframe run`, as a user meets them (issue 38): a scripted
model calls claude-tools' real tools in a project whose `.claude/settings.json` (or agent
file) holds the rules, and nothing a rule does not allow happens on disk."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from agentframe_core.testing import run_cli


@pytest.fixture(autouse=True)
def _trusted(monkeypatch: pytest.MonkeyPatch) -> None:
    """These projects are the user's own: the workspace trust step is not what is tested."""
    monkeypatch.setenv("AGENTFRAME_TRUST_ALL", "1")


def _call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def _project(root: Path, permissions: dict[str, Any] | None, replies: list[Any]) -> Path:
    """A project whose settings hold `permissions` (None: no settings file)."""
    (root / ".claude").mkdir(parents=True)
    (root / ".git").mkdir()
    if permissions is not None:
        settings = json.dumps({"permissions": permissions})
        (root / ".claude" / "settings.json").write_text(settings)
    config = {
        "adapter": {"use": "scripted", "replies": [*replies, {"content": "done"}]},
        "store": {"use": "memory"},
        "context": {"use": "verbatim"},
        "tools": [{"use": "claude-tools", "root": "."}],
    }
    (root / "agentframe.yaml").write_text(yaml.safe_dump(config))
    return root


def _run(cwd: Path, *args: str) -> list[dict[str, Any]]:
    done = run_cli(cwd, "run", "--json", *args, "go")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    calls: list[dict[str, Any]] = json.loads(done.stdout)["tool_calls"]
    return calls


BYPASSES = [
    "echo safe & touch pwned-bg",
    "echo safe `touch pwned-tick`",
    "echo safe $(touch pwned-sub)",
    "echo safe <(touch pwned-proc)",
    "echo safe > pwned-redirect",
    "echo safe; (touch pwned-subshell)",
    "X=$(touch pwned-assign) echo safe",
]


def test_an_allow_rule_allows_only_commands_it_covers(tmp_path: Path) -> None:
    replies = [_call("Bash", command="echo safe")] + [_call("Bash", command=c) for c in BYPASSES]
    cwd = _project(tmp_path / "p", {"allow": ["Bash(echo safe:*)"]}, replies)
    ran, *refused = _run(cwd)
    assert not ran["is_error"] and ran["result"].strip() == "safe"
    for call in refused:
        assert call["is_error"] and "no one can answer" in call["result"], call
    assert not list(cwd.glob("pwned*"))


def test_a_deny_rule_matches_every_command_the_line_runs(tmp_path: Path) -> None:
    lines = [
        "true & rm -f victim1",
        "echo $(rm -f victim2)",
        "echo `rm -f victim3`",
        "/bin/rm -f victim4",
        "timeout 5 rm -f victim5",
        "sh -c 'true; rm -f victim6'",
    ]
    cwd = _project(
        tmp_path / "p",
        {"allow": ["Bash"], "deny": ["Bash(rm:*)"]},
        [_call("Bash", command=line) for line in lines]
        + [_call("Bash", command="eval rm -f victim7")],
    )
    for n in range(1, 8):
        (cwd / f"victim{n}").write_text("keep me")
    *denied, unsure = _run(cwd)
    for call in denied:
        assert call["is_error"] and "rule 'Bash(rm:*)'" in call["result"], call
    assert unsure["is_error"] and "cannot be checked" in unsure["result"]
    assert sorted(p.name for p in cwd.glob("victim*")) == [f"victim{n}" for n in range(1, 8)]


def test_an_agent_files_bash_entry_is_read_the_same_way(tmp_path: Path) -> None:
    replies = [_call("Bash", command="echo safe")] + [_call("Bash", command=c) for c in BYPASSES]
    cwd = _project(tmp_path / "p", None, [*replies, _call("Bash", command="eval echo safe")])
    (cwd / ".claude" / "agents").mkdir()
    (cwd / ".claude" / "agents" / "safe.md").write_text(
        "---\nname: safe\ndescription: Echoes.\ntools: Bash(echo safe:*)\n---\nEcho.\n"
    )
    ran, *refused = _run(cwd, "--agent", "safe")
    assert not ran["is_error"] and ran["result"].strip() == "safe"
    for call in refused:
        assert call["is_error"] and "agent 'safe'" in call["result"], call
    assert "cannot check this command" in refused[-1]["result"]
    assert not list(cwd.glob("pwned*"))


def test_a_read_deny_rule_hides_files_from_grep_glob_and_ls(tmp_path: Path) -> None:
    """The gate matches only the folder a call names: a search of the whole project found
    `.env` and printed the key. Each file a walk finds is tried against the Read deny rules."""
    replies = [
        _call("Grep", pattern="KEY=", output_mode="content"),
        _call("Grep", pattern="KEY=", glob=".env", output_mode="content"),
        _call("Grep", pattern="KEY=", path="sub", output_mode="content"),
        _call("Glob", pattern="**/*"),
        _call("LS"),
        _call("Grep", pattern="KEY=", path="secrets/", output_mode="content"),
        _call("LS", path="secrets"),
    ]
    cwd = _project(tmp_path / "p", {"deny": ["Read(.env)", "Read(secrets/**)"]}, replies)
    (cwd / ".env").write_text("API_KEY=sk-top-secret-1\n")
    (cwd / "sub").mkdir()
    (cwd / "sub" / ".env").write_text("API_KEY=sk-top-secret-2\n")
    (cwd / "sub" / "settings.py").write_text("API_KEY=os.environ['API_KEY']\n")
    (cwd / "secrets").mkdir()
    (cwd / "secrets" / "prod.txt").write_text("DB_KEY=sk-top-secret-3\n")
    grep_all, grep_env, grep_sub, glob, ls, grep_secrets, ls_secrets = _run(cwd)
    shown = json.dumps([grep_all, grep_env, grep_sub, glob, ls, grep_secrets, ls_secrets])
    assert "sk-top-secret" not in shown
    assert "sub/settings.py:1:API_KEY=os.environ" in grep_all["result"]
    assert "hidden by a permission rule" in grep_all["result"]
    assert grep_env["result"].startswith("No matches found")
    assert grep_sub["result"].startswith("settings.py:1:") or "settings.py" in grep_sub["result"]
    assert "sub/settings.py" in glob["result"] and "prod.txt" not in glob["result"]
    assert ".env" not in glob["result"] and "secrets" not in ls["result"].split("(")[0]
    assert grep_secrets["is_error"] and "denied" in grep_secrets["result"]
    assert ls_secrets["is_error"] and "denied" in ls_secrets["result"]
