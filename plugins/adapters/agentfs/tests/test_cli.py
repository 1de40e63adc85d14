"""`agentframe agent-mode ...` as a user runs it: real subprocesses, exit codes, --json."""

from __future__ import annotations

import asyncio
import json
from importlib import resources
from pathlib import Path

import pytest
import yaml
from agentframe_agentfs import AgentFSAdapter, AgentFSOptions, TaskTimeoutError

from agentframe_core import CompletionRequest, Message
from agentframe_core.testing import eventually_async, run_cli


async def leave_tasks(folder: Path, *texts: str) -> list[str]:
    """Tasks nobody answered, as a run with no drainer leaves them; their ids."""
    fs = AgentFSAdapter(AgentFSOptions(dir=folder, timeout_seconds=0.01, heartbeat="off"))
    ids = []
    for i, text in enumerate(texts):
        request = CompletionRequest([Message("user", text)], metadata={"context_label": f"s{i}:x"})
        with pytest.raises(TaskTimeoutError):
            await fs.complete(request)
        ids.append(fs.envelope(request)["task_id"])
    return ids


def cli_json(cwd: Path, *args: str) -> object:
    done = run_cli(cwd, "agent-mode", *args, "--dir", str(cwd / "work"), "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


async def test_list_answer_show_retry_status(tmp_path: Path) -> None:
    first, second = await leave_tasks(tmp_path / "work", "one", "two")
    listed = cli_json(tmp_path, "list")
    assert [(t["id"], t["state"], t["step"]) for t in listed] == [  # type: ignore[index, union-attr]
        (first, "pending", "s0"),
        (second, "pending", "s1"),
    ]
    done = run_cli(
        tmp_path, "agent-mode", "answer", first[:10], "--dir", str(tmp_path / "work"),
        "--file", str(_write(tmp_path / "a.txt", "```json\n{\"n\": 1}\n```")),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"answered {first}"
    shown = cli_json(tmp_path, "show", first[:10])
    assert shown["state"] == "answered"  # type: ignore[index]
    assert shown["answer"]["answer"] == '```json\n{"n": 1}\n```'  # type: ignore[index]
    assert shown["task"]["user"] == "one"  # type: ignore[index]
    # the adapter reads the hand-written answer (fence stripped: the request asks for JSON)
    fs = AgentFSAdapter(AgentFSOptions(dir=tmp_path / "work", timeout_seconds=5))
    request = CompletionRequest(
        [Message("user", "one")], response_schema={}, metadata={"context_label": "s0:x"}
    )
    assert (await fs.complete(request)).content == '{"n": 1}'

    assert cli_json(tmp_path, "retry", first) == {"id": first, "retried": True}
    pending = cli_json(tmp_path, "list", "--state", "pending")
    assert sorted(t["id"] for t in pending) == sorted([first, second])  # type: ignore[index, union-attr]
    assert (tmp_path / "work" / "agent_outbox" / f"{first}.answer.json.rejected.1").exists()
    status = cli_json(tmp_path, "status")
    assert status["tasks"] == {"pending": 2, "claimed": 0, "answered": 0, "failed": 0}  # type: ignore[index]
    assert status["drainers"] == []  # type: ignore[index]


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


async def test_a_person_answers_a_waiting_adapter(tmp_path: Path) -> None:
    fs = AgentFSAdapter(AgentFSOptions(dir=tmp_path / "work", timeout_seconds=60))
    request = CompletionRequest([Message("user", "Your name?")])
    waiting = asyncio.create_task(fs.complete(request))
    task_id = fs.envelope(request)["task_id"]
    paths = fs.folder.paths(task_id)
    await eventually_async(paths.task.exists, 30, what="the task")
    done = await asyncio.to_thread(
        run_cli,
        tmp_path, "agent-mode", "answer", task_id, "--dir", str(tmp_path / "work"),
        "--file", str(_write(tmp_path / "name.txt", "Ada")),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (await asyncio.wait_for(waiting, 10)).content == "Ada"


async def test_bad_ids_and_missing_folders_exit_1(tmp_path: Path) -> None:
    await leave_tasks(tmp_path / "work", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k")
    for args, message in [
        (["show", "../../etc/passwd"], "is not a task id or a prefix of one"),
        (["show", "0" * 64], "no task 000"),
        (["show", ""], "is not a task id"),
        (["retry", "zz"], "is not a task id"),
    ]:
        done = run_cli(tmp_path, "agent-mode", *args, "--dir", str(tmp_path / "work"))
        assert done.returncode == 1 and message in done.stderr, (args, done.stderr)
    # with 11 tasks, some one-character prefix is shared by two of them
    ids = [t["id"] for t in cli_json(tmp_path, "list")]  # type: ignore[index, union-attr]
    shared = next(p for p in "0123456789abcdef" if sum(i.startswith(p) for i in ids) > 1)
    done = run_cli(tmp_path, "agent-mode", "show", shared, "--dir", str(tmp_path / "work"))
    assert done.returncode == 1 and "ambiguous" in done.stderr
    done = run_cli(tmp_path, "agent-mode", "status", "--dir", str(tmp_path / "nowhere"))
    assert done.returncode == 1 and "no agent-mode folder at" in done.stderr


def test_serve_refuses_agentfs_as_its_own_adapter(tmp_path: Path) -> None:
    config = tmp_path / "loop.yaml"
    config.write_text("adapter:\n  use: agentfs\n  dir: work\n")
    done = run_cli(tmp_path, "agent-mode", "serve", "--config", str(config))
    assert done.returncode == 2
    assert f"{config}:2: adapter.use: a drainer answers with a real model" in done.stderr


def test_serve_reports_a_bad_config_with_its_line(tmp_path: Path) -> None:
    config = tmp_path / "drainer.yaml"
    config.write_text("adapter:\n  use: scripted\n  replys: [hi]\n")
    done = run_cli(tmp_path, "agent-mode", "serve", "--config", str(config))
    assert done.returncode == 2
    assert f"{config}:3: adapter.replys: unknown option for 'scripted'" in done.stderr


def test_serve_uses_a_profile_of_the_pipeline_config(tmp_path: Path) -> None:
    """One file: the pipeline uses agentfs, the `drainer` profile a real adapter."""
    config = {
        "adapter": {"use": "agentfs", "dir": "work"},
        "profiles": {"drainer": {"adapter": {"use": "scripted", "replies": ["hi"]}}},
    }
    (tmp_path / "agentframe.yaml").write_text(yaml.safe_dump(config))
    done = run_cli(tmp_path, "agent-mode", "serve", "--profile", "nope")
    assert done.returncode == 2 and "unknown profile 'nope' (drainer)" in done.stderr
    done = run_cli(tmp_path, "agent-mode", "serve")
    assert done.returncode == 2 and "a drainer answers with a real model" in done.stderr


def test_agentfs_options_are_validated_with_their_path(tmp_path: Path) -> None:
    (tmp_path / "agentframe.yaml").write_text(
        "adapter:\n  use: agentfs\n  heartbeat: sometimes\n  timeout_seconds: -1\n"
        "store: memory\ncontext: verbatim\n"
    )
    done = run_cli(tmp_path, "config", "check")
    assert done.returncode == 2
    assert "agentframe.yaml:3: adapter.heartbeat: " in done.stderr
    assert "agentframe.yaml:4: adapter.timeout_seconds: " in done.stderr


def test_install_skill(tmp_path: Path) -> None:
    dest = tmp_path / "skills" / "agentframe-agent-mode"
    shipped = resources.files("agentframe_agentfs").joinpath("skill/SKILL.md").read_text()
    done = run_cli(tmp_path, "agent-mode", "install-skill", "--dest", str(dest))
    assert done.returncode == 0, done.stderr
    installed = (dest / "SKILL.md").read_text()
    assert installed == shipped
    front = yaml.safe_load(installed.split("---\n")[1])
    assert front["name"] == "agentframe-agent-mode" == dest.name
    assert "agent_inbox" in front["description"]
    again = run_cli(tmp_path, "agent-mode", "install-skill", "--dest", str(dest), "--json")
    assert json.loads(again.stdout) == {"installed": str(dest / "SKILL.md"), "changed": False}
    (dest / "SKILL.md").write_text("my edits")
    refused = run_cli(tmp_path, "agent-mode", "install-skill", "--dest", str(dest))
    assert refused.returncode == 1 and "--force" in refused.stderr
    assert (dest / "SKILL.md").read_text() == "my edits"
    forced = run_cli(tmp_path, "agent-mode", "install-skill", "--dest", str(dest), "--force")
    assert forced.returncode == 0 and (dest / "SKILL.md").read_text() == shipped


def test_install_skill_defaults_to_the_claude_skills_folder(tmp_path: Path) -> None:
    import subprocess
    import sys

    from agentfs_procs import environment

    env = {**environment(tmp_path / "cache"), "HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "agentframe_core", "agent-mode", "install-skill"],
        env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (tmp_path / ".claude/skills/agentframe-agent-mode/SKILL.md").is_file()
    assert (
        done.stdout.strip()
        == f"installed: {tmp_path}/.claude/skills/agentframe-agent-mode/SKILL.md"
    )


async def test_answer_refuses_to_overwrite_an_answer_without_force(tmp_path: Path) -> None:
    [task] = await leave_tasks(tmp_path / "work", "one")
    where = ["--dir", str(tmp_path / "work")]

    def answer(text: str, *extra: str):  # type: ignore[no-untyped-def]
        source = _write(tmp_path / f"{text}.txt", text)
        return run_cli(
            tmp_path, "agent-mode", "answer", task, *where, "--file", str(source), *extra
        )

    assert answer("first").returncode == 0
    again = answer("second")
    assert (
        again.returncode == 1 and "already answered" in again.stderr and "--force" in again.stderr
    )
    assert "Traceback" not in again.stderr
    shown = cli_json(tmp_path, "show", task)
    assert shown["answer"]["answer"] == "first"  # type: ignore[index]
    assert answer("second", "--force").returncode == 0
    shown = cli_json(tmp_path, "show", task)
    assert shown["answer"]["answer"] == "second"  # type: ignore[index]
    kept = tmp_path / "work" / "agent_outbox" / f"{task}.answer.json.rejected.1"
    assert "first" in kept.read_text()  # the replaced answer is kept, not lost
