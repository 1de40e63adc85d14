"""Claude Code hooks and permission rules in a run: blocks, rewrites, questions, and hostile
settings or hooks, each bounded and named. Real command hooks (scripts the tests write) run
against the real tools of agentframe-claude-tools; the model is scripted."""

from __future__ import annotations

import json
import logging
import os
import sys
import time
from pathlib import Path
from typing import Any

import agentframe_compat.plugin as compat
import pytest
from agentframe_claude_tools import ClaudeTools, ClaudeToolsOptions
from agentframe_compat import ClaudeLoader
from agentframe_compat.hookrunner import MAX_OUTPUT_BYTES

from agentframe_core import (
    AgentDefinition,
    Answer,
    MemoryStore,
    PluginHost,
    Question,
    RunContext,
    Session,
    Stack,
    VerbatimBuilder,
    pid_alive,
)
from agentframe_core.testing import ScriptedAdapter

PY = f'"{sys.executable}"'


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    (root / ".claude").mkdir(parents=True)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(root))
    monkeypatch.setenv("AGENTFRAME_TRUST_ALL", "1")  # its hooks may run: test_trust.py tests trust
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return root


def bash(command: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "Bash", "arguments": {"command": command}}]}


def make_stack(project: Path, replies: list[Any]) -> Stack:
    host = PluginHost()
    host.add("compat", compat)
    tools = ClaudeTools(ClaudeToolsOptions(root=project, allow=["Bash", "Read", "Write"]))
    stack = Stack(ScriptedAdapter(replies), MemoryStore(), VerbatimBuilder(), tools=[tools])
    stack.hooks = host.pm.hook
    return stack


def write_settings(project: Path, data: dict[str, Any], name: str = "settings.json") -> None:
    (project / ".claude" / name).write_text(json.dumps(data))


def hooks(event: str, script: str, project: Path, matcher: str = "", timeout: float = 20) -> dict:
    path = project / f"{event}-{abs(hash(script))}.py"
    path.write_text(script)
    hook = {"type": "command", "command": f"{PY} {path}", "timeout": timeout}
    return {event: [{"matcher": matcher, "hooks": [hook]}]}


async def first_result(project: Path, replies: list[Any], **run: Any) -> str:
    result = await Session(make_stack(project, replies)).run("go", **run)
    return result.tool_calls[0].result.content


# -- PreToolUse: exit 2, JSON deny, ask ---------------------------------------------------------

BLOCK_RM = """
import json, sys
event = json.load(sys.stdin)
if "rm " in event["tool_input"]["command"]:
    print("rm is not allowed here; move files to ./trash instead", file=sys.stderr)
    sys.exit(2)
"""


async def test_exit_2_blocks_the_call_and_feeds_stderr_back(project: Path) -> None:
    write_settings(project, {"hooks": hooks("PreToolUse", BLOCK_RM, project, "Bash")})
    (project / "keep.txt").write_text("x")
    content = await first_result(project, [bash("rm keep.txt"), "ok"])
    assert content == "tool call refused: rm is not allowed here; move files to ./trash instead"
    assert (project / "keep.txt").exists()
    assert "hello" in await first_result(project, [bash("echo hello"), "ok"])


DENY_JSON = """
import json, sys
json.load(sys.stdin)
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
    "permissionDecision": "deny", "permissionDecisionReason": "reads go through Read"}}))
"""


async def test_a_json_deny_blocks_with_its_reason(project: Path) -> None:
    write_settings(project, {"hooks": hooks("PreToolUse", DENY_JSON, project, "Ba.*")})
    content = await first_result(project, [bash("cat x"), "ok"])
    assert content == "tool call refused: reads go through Read"


ASK_JSON = """
import json, sys
json.load(sys.stdin)
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
    "permissionDecision": "ask", "permissionDecisionReason": "this writes a file"}}))
"""

NOTIFIED = """
import json, os, sys
event = json.load(sys.stdin)
open(os.path.join(os.environ["CLAUDE_PROJECT_DIR"], "notified.json"), "w").write(json.dumps(event))
"""


async def test_ask_goes_to_the_person_and_a_notification_fires(project: Path) -> None:
    settings = {"hooks": {**hooks("PreToolUse", ASK_JSON, project, "Bash")}}
    settings["hooks"].update(hooks("Notification", NOTIFIED, project))
    write_settings(project, settings)
    asked: list[Question] = []

    async def accept(question: Question) -> Answer:
        asked.append(question)
        return Answer("accept")

    assert "yes" in await first_result(project, [bash("echo yes"), "ok"], on_question=accept)
    assert asked[0].source == "permissions" and "this writes a file" in asked[0].message
    notified = json.loads((project / "notified.json").read_text())
    assert notified["notification_type"] == "permission_prompt"
    assert "this writes a file" in notified["message"]
    refused = await first_result(project, [bash("echo no"), "ok"])  # nobody to ask
    assert refused.startswith("tool call refused: Bash: this writes a file")
    assert "no one can answer: the run is not interactive" in refused
    settings["permissions"] = {"deny": ["Bash(echo denied:*)"]}  # deny wins over the hook's ask
    write_settings(project, settings)
    denied = await first_result(project, [bash("echo denied"), "ok"], on_question=accept)
    assert "rule 'Bash(echo denied:*)'" in denied and len(asked) == 1


# -- the rules: settings files and agent files --------------------------------------------------


async def test_permission_rules_allow_ask_and_deny_through_the_gate(project: Path) -> None:
    write_settings(project, {"permissions": {"allow": ["Bash(echo:*)"], "deny": ["Read(./.env)"]}})
    write_settings(
        project, {"permissions": {"ask": ["Bash(echo secret:*)"]}}, "settings.local.json"
    )
    (project / ".env").write_text("TOKEN=1")
    assert "hi" in await first_result(project, [bash("echo hi"), "ok"])
    asked = await first_result(project, [bash("echo secret"), "ok"])
    assert "rule 'Bash(echo secret:*)'" in asked and "no one can answer" in asked
    unmatched = await first_result(project, [bash("ls"), "ok"])
    assert "no rule allows Bash (default mode asks)" in unmatched
    read = {"tool_calls": [{"name": "Read", "arguments": {"file_path": str(project / ".env")}}]}
    denied = await first_result(project, [read, "ok"])
    assert denied.startswith("tool call refused: permission to use Read was denied")
    assert "TOKEN" not in denied


async def test_plan_mode_allows_only_what_does_not_write(project: Path) -> None:
    write_settings(project, {"permissions": {"defaultMode": "plan"}})
    (project / "a.txt").write_text("alpha")
    read = {"tool_calls": [{"name": "Read", "arguments": {"file_path": "a.txt"}}]}
    assert "alpha" in await first_result(project, [read, "ok"])
    assert "plan mode" in await first_result(project, [bash("echo x"), "ok"])


async def test_an_agent_files_bash_restriction_is_enforced(project: Path) -> None:
    agents = project / ".claude" / "agents"
    agents.mkdir()
    (agents / "gitter.md").write_text(
        "---\nname: gitter\ndescription: git only\ntools: Read, Bash(echo git:*)\n---\nUse git.\n"
    )
    agent = ClaudeLoader().load_file(agents / "gitter.md", "project")
    assert agent.tools == ["Read", "Bash"] and agent.warnings == ()

    async def run(command: str) -> str:
        stack = make_stack(project, [bash(command), "ok"])
        result = await Session(stack, agent=agent).run("go")
        return result.tool_calls[0].result.content

    assert "git status" in await run("echo git status")
    refused = await run("echo rm")
    assert (
        refused
        == "tool call refused: agent 'gitter' allows Bash only as 'Bash(echo git:*)' (tools)"
    )


# -- the other events ---------------------------------------------------------------------------

EXIT_2 = """
import json, sys
json.load(sys.stdin)
print("stderr feedback", file=sys.stderr)
sys.exit(2)
"""


async def test_post_tool_use_and_prompt_submit_exit_2(project: Path) -> None:
    write_settings(project, {"hooks": hooks("PostToolUse", EXIT_2, project, "Bash")})
    content = await first_result(project, [bash("echo ran"), "ok"])
    assert "ran" in content and "stderr feedback" in content  # the call ran; the model hears
    write_settings(project, {"hooks": hooks("UserPromptSubmit", EXIT_2, project)})
    result = await Session(make_stack(project, ["never"])).run("hello")
    assert (result.outcome, result.reply) == ("blocked", "stderr feedback")


LOG = """
import json, os, sys
event = json.load(sys.stdin)
with open(os.path.join(os.environ["CLAUDE_PROJECT_DIR"], "log.jsonl"), "a") as log:
    log.write(json.dumps(event) + "\\n")
"""


async def test_subagent_stop_and_pre_compact_fire_with_their_fields(project: Path) -> None:
    settings: dict[str, Any] = {}
    for event in ("Stop", "SubagentStop", "PreCompact"):
        settings.update(hooks(event, LOG, project))
    write_settings(project, {"hooks": settings})
    stack = make_stack(project, ["child done", "parent done"])
    await Session(stack, parent="parent-1").run("child task")
    await Session(stack).run("parent task")
    await RunContext("s2", stack).compacting("auto")
    log = [json.loads(line) for line in (project / "log.jsonl").read_text().splitlines()]
    assert [e["hook_event_name"] for e in log] == ["SubagentStop", "Stop", "PreCompact"]
    assert log[0]["stop_hook_active"] is False and log[2]["trigger"] == "auto"


# -- hostile settings and hooks -----------------------------------------------------------------


async def test_a_10_mb_settings_file_is_refused_with_its_name(project: Path) -> None:
    path = project / ".claude" / "settings.json"
    path.write_text('{"hooks": {}, "pad": "' + "x" * (10 * 1024 * 1024) + '"}')
    result = await Session(make_stack(project, ["never"])).run("hello")
    assert result.outcome == "blocked"
    assert str(path) in result.reply and "refused" in result.reply


async def test_settings_that_link_out_of_the_project_or_are_no_file_are_refused(
    project: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere.json"
    outside.write_text(json.dumps({"permissions": {"allow": ["Bash"]}}))
    path = project / ".claude" / "settings.json"
    path.symlink_to(outside)
    result = await Session(make_stack(project, [bash("echo hi"), "ok"])).run("go")
    assert result.outcome == "blocked" and not result.tool_calls
    assert f"{path}: refused" in result.reply and str(outside) in result.reply
    path.unlink()
    os.mkfifo(path)
    result = await Session(make_stack(project, [bash("echo hi"), "ok"])).run("go")
    assert f"{path}: refused" in result.reply and "not a regular file" in result.reply


HANGS = "import time\ntime.sleep(600)\n"
CHILD_HANGS = """
import os, subprocess, sys
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
open(os.path.join(os.environ["CLAUDE_PROJECT_DIR"], "child.pid"), "w").write(str(child.pid))
"""
FLOODS = "import sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n"


@pytest.mark.parametrize(
    ("script", "why"),
    [
        (HANGS, "timed out after 1 s; killed"),
        (CHILD_HANGS, "timed out after 1 s; killed"),
        (FLOODS, f"wrote more than {MAX_OUTPUT_BYTES} bytes; killed"),
    ],
    ids=["never-exits", "child-never-exits", "floods-stdout"],
)
async def test_a_hook_that_hangs_or_floods_is_killed_and_named(
    project: Path, script: str, why: str, caplog: pytest.LogCaptureFixture
) -> None:
    write_settings(project, {"hooks": hooks("PreToolUse", script, project, "Bash", timeout=1)})
    started = time.monotonic()
    with caplog.at_level(logging.WARNING, "agentframe.claude-hooks"):
        content = await first_result(project, [bash("echo survived"), "ok"])
    assert time.monotonic() - started < 20
    assert "survived" in content  # a failed hook does not block (Claude Code's rule)
    warning = next(r.getMessage() for r in caplog.records if "failed" in r.getMessage())
    assert f"PreToolUse hook '{PY}" in warning and "settings.json" in warning and why in warning
    pid_file = project / "child.pid"
    if pid_file.exists():  # the child held the hook's stdout open: killed with its group
        pid = int(pid_file.read_text())
        deadline = time.monotonic() + 5
        while pid_alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not pid_alive(pid)


async def test_an_agents_accept_edits_mode_lets_edits_run(project: Path) -> None:
    write_settings(project, {"permissions": {"allow": []}})
    agent = AgentDefinition(name="editor", description="edits", permissionMode="acceptEdits")
    write = {"tool_calls": [{"name": "Write", "arguments": {"file_path": "a.txt", "content": "x"}}]}
    stack = make_stack(project, [write, bash("echo x"), "ok"])
    wrote, ran = (
        r.result.content for r in (await Session(stack, agent=agent).run("go")).tool_calls
    )
    assert "File created successfully" in wrote and (project / "a.txt").read_text() == "x"
    assert "no rule allows Bash (acceptEdits mode asks)" in ran
