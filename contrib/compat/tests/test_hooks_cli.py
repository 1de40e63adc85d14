"""Claude Code hooks from a project's `.claude/settings.json`, run by `agentframe run`.

Real command hooks (a Python script the test writes) log the JSON Claude Code gives them on
stdin; the scripted model calls the real `Bash` tool of agentframe-claude-tools."""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path

import pytest

from agentframe_core.testing import run_cli

HOOK = r"""
import json, os, sys
event = json.load(sys.stdin)
name = event["hook_event_name"]
with open(os.path.join(os.environ["CLAUDE_PROJECT_DIR"], "events.jsonl"), "a") as log:
    event["transcript"] = open(event["transcript_path"]).read().splitlines()
    log.write(json.dumps(event) + "\n")
if name == "SessionStart":
    print(json.dumps({"hookSpecificOutput": {"hookEventName": name,
                                             "additionalContext": "CTX-START: branch main"}}))
elif name == "PreToolUse" and event["tool_input"]["command"] == "echo one":
    print(json.dumps({"hookSpecificOutput": {"hookEventName": name,
                                             "updatedInput": {"command": "echo rewritten"}}}))
elif name == "Stop" and not event["stop_hook_active"]:
    print(json.dumps({"decision": "block", "reason": "run the tests too"}))
"""

CONFIG = """\
adapter:
  use: scripted
  replies:
    - tool_calls: [{name: Bash, arguments: {command: "echo one"}}]
    - "first answer"
    - "second answer"
tools:
  - use: claude-tools
    allow: [Bash, Read]
"""


def settings(events: list[str], command: str) -> dict[str, object]:
    hook = {"type": "command", "command": command, "timeout": 20}
    matchers = {"PreToolUse": "Bash|Read", "PostToolUse": "Bash", "SessionStart": "startup"}
    return {"hooks": {e: [{"matcher": matchers.get(e, ""), "hooks": [hook]}] for e in events}}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project whose hooks may run (trusted: `test_trust.py` tests trust)."""
    monkeypatch.setenv("AGENTFRAME_TRUST_ALL", "1")
    root = tmp_path / "project"
    (root / ".claude").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "agentframe.yaml").write_text(CONFIG)
    (root / "hook.py").write_text(HOOK)
    return root


def test_every_event_fires_in_order_with_claude_codes_input(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    events = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"]
    command = f'"{sys.executable}" "$CLAUDE_PROJECT_DIR/hook.py"'
    (project / ".claude" / "settings.json").write_text(json.dumps(settings(events, command)))
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    done = run_cli(project, "run", "--json", "list the files")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    log = [json.loads(line) for line in (project / "events.jsonl").read_text().splitlines()]
    names = [event["hook_event_name"] for event in log]
    assert names == [*events[:-1], "Stop", "SessionEnd"]
    assert {e["session_id"] for e in log} == {result["session_id"]}
    assert {e["cwd"] for e in log} == {str(project.resolve())}
    start, prompt, pre, post, stop, again, end = log
    assert start["source"] == "startup" and end["reason"] == "other"
    assert prompt["prompt"] == "list the files"
    assert pre["tool_name"] == "Bash" and pre["tool_input"] == {"command": "echo one"}
    assert post["tool_input"] == {"command": "echo rewritten"}  # the rewritten input ran
    assert "rewritten" in json.dumps(post["tool_response"])
    assert (stop["stop_hook_active"], again["stop_hook_active"]) == (False, True)
    assert result["reply"] == "second answer"  # the Stop hook made the run go on once
    # the transcript is Claude Code's JSONL: the context the start hook added, the prompt,
    # the tool call and its result, each a line with a uuid chained to the one before
    lines = [json.loads(line) for line in again["transcript"]]
    assert [line["type"] for line in lines][:3] == ["user", "user", "assistant"]
    assert "CTX-START: branch main" in lines[0]["message"]["content"]
    assert lines[1]["message"]["content"] == "list the files"
    use = next(b for line in lines for b in _blocks(line) if b.get("type") == "tool_use")
    assert (use["name"], use["input"]) == ("Bash", {"command": "echo one"})
    assert any(b.get("type") == "tool_result" for line in lines for b in _blocks(line))
    assert all(b["parentUuid"] == a["uuid"] for a, b in itertools.pairwise(lines))
    assert "run the tests too" in lines[-2]["message"]["content"]  # before the 2nd answer


def _blocks(line: dict[str, object]) -> list[dict[str, object]]:
    content = line["message"]["content"]  # type: ignore[index]
    return content if isinstance(content, list) else []


NOTIFY = r"""
import json, os, sys
event = json.load(sys.stdin)
with open(os.path.join(os.environ["CLAUDE_PROJECT_DIR"], "notified.jsonl"), "a") as log:
    log.write(json.dumps(event) + "\n")
"""


CHAT_CONFIG = """\
adapter:
  use: scripted
  replies:
    - tool_calls:
        - {name: Bash, arguments: {command: "echo allowed"}}
        - {name: Bash, arguments: {command: "echo approved > approved.txt"}}
        - {name: Bash, arguments: {command: "rm -rf src"}}
        - {name: Read, arguments: {file_path: "src/a.py"}}
    - "done"
tools:
  - use: claude-tools
    allow: [Bash, Read]
"""


def test_permission_rules_through_chat(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """allow, ask and deny rules decide four calls; `chat` answers the ask from its own input
    (the Notification hook hears of it first); deny wins over allow; /exit is a SessionEnd.
    (Where nobody can answer, `run` refuses an ask: `test_hooks.py`.)"""
    (project / "agentframe.yaml").write_text(CHAT_CONFIG)
    (project / "src").mkdir()
    (project / "src" / "a.py").write_text("print('a')\n")
    (project / "notify.py").write_text(NOTIFY)
    hook = [{"hooks": [{"type": "command", "command": f'"{sys.executable}" notify.py'}]}]
    permissions = {
        "allow": ["Bash(echo:*)", "Read(src/**)"],
        "ask": ["Bash(echo approved:*)"],
        "deny": ["Bash(rm:*)"],
    }
    settings = {"permissions": permissions, "hooks": {"Notification": hook, "SessionEnd": hook}}
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    monkeypatch.setenv("HOME", str(tmp_path))
    done = run_cli(project, "chat", input="tidy up\ny\n/exit\n")
    assert done.returncode == 0, done.stderr
    assert "rule 'Bash(echo approved:*)'" in done.stderr and "allow? [y/n]" in done.stderr
    assert (project / "approved.txt").read_text().strip() == "approved"
    assert (project / "src" / "a.py").exists()
    log = [json.loads(line) for line in (project / "notified.jsonl").read_text().splitlines()]
    notified, ended = log
    assert notified["notification_type"] == "permission_prompt"
    assert "echo approved" in notified["message"]
    assert (ended["hook_event_name"], ended["reason"]) == ("SessionEnd", "prompt_input_exit")
    shown = done.stdout + done.stderr
    assert "permission to use Bash was denied (rule 'Bash(rm:*)'" in shown, shown
