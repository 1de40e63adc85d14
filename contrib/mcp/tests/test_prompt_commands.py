"""A server's prompts as slash commands (`/SERVER:PROMPT`), run as a user would, against
`servers/asking.py` (an `MCPServer` with the prompt `greet {name}`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import yaml
from agentframe_mcp.commands import parse_arguments
from projects import scripted_project as project  # a helper beside the tests

from agentframe_core import CommandError
from agentframe_core.testing import run_cli

ASKING = Path(__file__).parent / "servers" / "asking.py"


def test_prompts_are_listed_and_rendered_into_the_run(tmp_path: Path) -> None:
    broken = {"command": sys.executable, "args": ["-c", "raise SystemExit(3)"]}
    cwd = project(
        tmp_path, {"ask": {"command": sys.executable, "args": [str(ASKING)]}, "bad": broken}
    )
    listed = run_cli(cwd, "commands", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    shown = json.loads(listed.stdout)
    (greet,) = [c for c in shown["commands"] if c["name"] == "ask:greet"]
    assert greet["source"] == "mcp:ask" and greet["namespace"] == "mcp ask"
    assert greet["level"] == "plugin" and greet["argument_hint"] == "name=..."
    assert any("mcp server bad did not start" in e for e in shown["errors"])

    done = run_cli(cwd, "run", "--json", "/ask:greet name=Ada")
    assert done.returncode == 0, done.stderr
    sid = json.loads(done.stdout)["session_id"]
    entries = json.loads(run_cli(cwd, "sessions", "show", sid, "--json").stdout)
    first_user = next(e for e in entries if e["kind"] == "user")
    assert "Please greet Ada warmly." in json.dumps(first_user)

    claude_code = run_cli(cwd, "run", "--json", "/mcp__ask__greet Grace")  # its spelling
    assert claude_code.returncode == 0, claude_code.stderr

    missing = run_cli(cwd, "run", "/ask:greet")
    assert missing.returncode != 0
    assert "missing required argument(s): name" in missing.stderr
    assert "Traceback" not in missing.stderr


def test_arguments_by_name_or_in_declared_order() -> None:
    declared = [
        {"name": "a", "required": True},
        {"name": "b", "required": False},
        {"name": "c", "required": True},
    ]
    assert parse_arguments("/s:p", declared, 'c=3 "one two"') == {"c": "3", "a": "one two"}
    assert parse_arguments("/s:p", declared, "x y z") == {"a": "x", "b": "y", "c": "z"}
    assert parse_arguments("/s:p", declared, "z=1 2 3") == {"a": "z=1", "b": "2", "c": "3"}
    with pytest.raises(CommandError, match="missing required argument\\(s\\): c"):
        parse_arguments("/s:p", declared, "b=2 1")
    with pytest.raises(CommandError, match="too many arguments"):
        parse_arguments("/s:p", declared, "1 2 3 4")


def test_the_config_named_by_config_flag_is_the_one_listed(tmp_path: Path) -> None:
    """The hook sees `--config`: its inline servers, not the folder's (absent) .mcp.json."""
    inline = {"greeter": {"command": sys.executable, "args": [str(ASKING)]}}
    other = tmp_path / "elsewhere" / "stack.yaml"
    other.parent.mkdir()
    other.write_text(
        yaml.safe_dump(
            {
                "adapter": {"use": "scripted", "replies": ["done"]},
                "tools": [{"use": "mcp", "servers": inline}],
            }
        )
    )
    plain = run_cli(tmp_path, "commands", "list", "--json")
    assert "greeter:greet" not in plain.stdout
    listed = run_cli(tmp_path, "--config", str(other), "commands", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    assert "greeter:greet" in [c["name"] for c in json.loads(listed.stdout)["commands"]]


#: `python -c COUNTING STARTS SERVER`: SERVER, after adding a line to the file STARTS.
COUNTING = (
    "import runpy, sys; open(sys.argv[1], 'a').write('start\\n'); "
    "sys.argv = sys.argv[2:]; runpy.run_path(sys.argv[0], run_name='__main__')"
)


def test_a_listing_is_reused_while_the_servers_stay_the_same(tmp_path: Path) -> None:
    """A chat's `/help` and the commands after it start the servers once."""
    from agentframe_mcp.commands import slash_commands

    starts = tmp_path / "starts"
    server = {"command": sys.executable, "args": ["-c", COUNTING, str(starts), str(ASKING)]}
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"ask": server}}))
    first = slash_commands(tmp_path, lambda: ([], None))
    again = slash_commands(tmp_path, lambda: ([], None))
    assert [c.name for c in first.commands] == [c.name for c in again.commands] == ["ask:greet"]
    assert starts.read_text().count("start") == 1
    server["env"] = {"CHANGED": "1"}
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"ask": server}}))
    changed = slash_commands(tmp_path, lambda: ([], None))
    assert [c.name for c in changed.commands] == ["ask:greet"]
    assert starts.read_text().count("start") == 2
