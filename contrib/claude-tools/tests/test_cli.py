"""Through the CLI, as a user meets it: `tools: [{use: claude-tools}]` in a config, a Claude
Code agent file whose `tools:` names `Read` gets this plugin's Read, an escape is an error
result the run survives, and plan mode lets Read run but not Write."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from agentframe_core.testing import run_cli


def _project(tmp_path: Path, agent: str, replies: list[Any], **tool_options: Any) -> Path:
    agents = tmp_path / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "reader.md").write_text(agent)
    (tmp_path / "notes.txt").write_text("The launch code is 7781.\n")
    (tmp_path.parent / "outside.txt").write_text("not yours\n")
    config = {
        "adapter": {"use": "scripted", "replies": replies},
        "store": {"use": "memory"},
        "context": {"use": "verbatim"},
        "tools": [{"use": "claude-tools", **tool_options}],
    }
    (tmp_path / "agentframe.yaml").write_text(yaml.safe_dump(config))
    return tmp_path


def _call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


READER = "---\nname: reader\ndescription: Reads files.\ntools: Read\n---\nYou read files.\n"


def test_an_agent_naming_read_gets_it_and_escapes_are_tool_errors(tmp_path: Path) -> None:
    replies = [
        _call("Read", file_path="notes.txt"),
        _call("Read", file_path="../outside.txt"),
        _call("Bash", command="cat ../outside.txt"),
        {"content": "The code is 7781."},
    ]
    cwd = _project(tmp_path / "p", READER, replies)
    done = run_cli(cwd, "run", "--agent", "reader", "--json", "read the notes")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    result = json.loads(done.stdout)
    read, escape, bash = result["tool_calls"]
    assert read["result"] == "     1→The launch code is 7781." and not read["is_error"]
    assert escape["is_error"] and "must be inside" in escape["result"]
    assert bash["is_error"] and "not allowed for agent 'reader'" in bash["result"]
    assert result["reply"] == "The code is 7781."


def test_plan_mode_allows_the_read_only_tools_only(tmp_path: Path) -> None:
    planner = "---\nname: reader\ndescription: Plans.\npermissionMode: plan\n---\nPlan.\n"
    replies = [
        _call("Grep", pattern="launch [c]ode"),  # the config holds the pattern, not a match
        _call("Write", file_path="new.txt", content="x"),
        _call("Bash", command="touch made-by-bash"),
        {"content": "planned"},
    ]
    cwd = _project(tmp_path / "p", planner, replies, root=".")
    done = run_cli(cwd, "run", "--agent", "reader", "--json", "plan it")
    assert done.returncode == 0, done.stderr
    grep, write, bash = json.loads(done.stdout)["tool_calls"]
    assert grep["result"] == "Found 1 file\nnotes.txt"
    assert write["is_error"] and "plan mode" in write["result"]
    assert bash["is_error"] and "plan mode" in bash["result"]
    assert not (cwd / "new.txt").exists() and not (cwd / "made-by-bash").exists()


def test_a_bad_option_is_a_config_error_naming_it(tmp_path: Path) -> None:
    cwd = _project(tmp_path / "p", READER, ["hi"], allow=["Read", "Telepathy"])
    done = run_cli(cwd, "run", "hello")
    assert done.returncode == 2
    assert "allow[1]" in done.stderr and "TodoWrite" in done.stderr  # the field, the choices
    assert "Traceback" not in done.stderr


def test_an_edit_whose_result_would_pass_max_file_bytes_is_refused(tmp_path: Path) -> None:
    """One `replace_all` of a byte by 64 KiB in a 2000-byte file would write 128 MB: the
    size is computed before the result is built, and the file is left as it was."""
    huge = "x" * (64 << 10)
    replies = [
        _call("Edit", file_path="big.txt", old_string="a", new_string=huge, replace_all=True),
        _call(
            "MultiEdit",
            file_path="big.txt",
            edits=[
                {"old_string": "aa", "new_string": "b", "replace_all": True},
                {"old_string": "b", "new_string": huge, "replace_all": True},
            ],
        ),
        _call("Write", file_path="new.txt", content=huge),
        _call("Edit", file_path="big.txt", old_string="a" * 2000, new_string="small"),
        {"content": "done"},
    ]
    cwd = _project(tmp_path / "p", READER, replies, root=".", max_file_bytes=4096)
    (cwd / "big.txt").write_text("a" * 2000)
    done = run_cli(cwd, "run", "--json", "grow it")
    assert done.returncode == 0, done.stderr
    edit, multi, write, fine = json.loads(done.stdout)["tool_calls"]
    assert edit["is_error"] and "131072000 bytes" in edit["result"]
    assert "max_file_bytes" in edit["result"]
    assert multi["is_error"] and "(edit 2)" in multi["result"]
    assert write["is_error"] and "max_file_bytes" in write["result"]
    assert not fine["is_error"], fine["result"]
    assert (cwd / "big.txt").read_text() == "small" and not (cwd / "new.txt").exists()
