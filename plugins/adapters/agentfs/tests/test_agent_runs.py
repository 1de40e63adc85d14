"""Whole agent runs over the filesystem: `agentframe run` in one process, a drainer in another,
every model call a task file, the tool run by the loop in between."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from agentfs_procs import envelopes

from agentframe_core.testing import run_cli

QUESTION = "What is 2+3? Use the add tool."


def pipeline_config(workdir: Path, **adapter: object) -> Path:
    config = {
        "adapter": {
            "use": "agentfs",
            "dir": str(workdir / "work"),
            "timeout_seconds": 60,
            **adapter,
        },
        "store": "memory",
        "context": "verbatim",
        "tools": [{"use": "functions", "import": ["agentframe_core.examples:add"]}],
    }
    path = workdir / "agentframe.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def check_run(workdir: Path, reply: str) -> list[dict[str, object]]:
    done = run_cli(workdir, "run", QUESTION)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == reply
    assert "→ add(a=2, b=3) = 5" in done.stderr
    tasks = envelopes(workdir / "work")
    assert len(tasks) == 2  # one model call to ask for the tool, one to answer
    first, second = tasks
    assert QUESTION in str(first["user"]) and first["step"] == "agent"
    assert str(first["context_label"]).endswith(":0") and str(second["context_label"]).endswith(
        ":1"
    )
    assert "5" in str(second["user"])  # the tool's result reached the model
    return tasks


@pytest.mark.parametrize("native", [False, True], ids=["text-tools", "native-tools"])
def test_an_agent_run_answered_by_an_agentframe_drainer(tmp_path, start_drainer, native) -> None:
    pipeline_config(tmp_path, native_tools=native)
    if native:
        replies = [{"tool_calls": [{"name": "add", "arguments": {"a": 2, "b": 3}}]}, "5, then."]
    else:
        replies = ['{"tool": "add", "args": {"a": 2, "b": 3}}', "5, then."]
    drainer = start_drainer(tmp_path / "work", replies)
    first, second = check_run(tmp_path, "5, then.")
    if native:  # the tools travel in the envelope, and are listed in `user` too
        assert [t["name"] for t in first["tools"]] == ["add"]  # type: ignore[index]
        assert "[tools you may call]\n- add: " in str(first["user"])
        roles = [m["role"] for m in second["messages"]]  # type: ignore[union-attr]
        assert roles == ["system", "user", "assistant", "tool"]
    else:
        assert "tools" not in first and '{"tool": "<name>"' in str(first["system"])
        assert first["user"] == QUESTION
    assert drainer.stop() == 0
    assert len(drainer.answered()) == 2


def test_an_agent_run_answered_by_a_base_contract_drainer(tmp_path, start_base_drainer) -> None:
    """The drainer reads only `system` and `user` and writes only `{task_id, answer}`: the
    loop's text tool calling and the rendered conversation carry the whole run."""
    pipeline_config(tmp_path)
    (tmp_path / "work").mkdir()
    start_base_drainer(tmp_path / "work", "add")
    check_run(tmp_path, "The sum is 5.0.")


def test_a_rerun_of_the_same_session_context_is_served_from_answers(
    tmp_path, start_drainer
) -> None:
    """Answers stay on disk: a task asked again (same prompt, same label) is not re-asked."""
    pipeline_config(tmp_path, heartbeat="off")
    drainer = start_drainer(tmp_path / "work", ["Hello."])
    assert run_cli(tmp_path, "run", "--session", "s1", "Hi").stdout.strip() == "Hello."
    assert drainer.stop() == 0
    (task,) = envelopes(tmp_path / "work")
    assert task["context_label"] == "agent:s1:0"
    # no drainer now; a fresh store, the same session id and prompt: the answer is on disk
    again = run_cli(tmp_path, "run", "--session", "s1", "Hi", timeout=60)
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip() == "Hello."
