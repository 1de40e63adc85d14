"""Bash: Claude Code's result shape, the exit code of a failure, head+tail output capping,
and a timeout that kills the whole process group: a child that ignores SIGTERM and a
grandchild sleeping in the background are gone (their pids checked) when the call returns."""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path
from typing import Any

from agentframe_core import ToolCall, pid_alive


async def test_output_and_exit_code(call: Any, project: Path) -> None:
    ok = await call("Bash", command="echo out; echo err >&2; pwd")
    assert not ok.is_error
    assert ok.content == f"out\n{project}\nerr"
    failed = await call("Bash", command="echo nope >&2; exit 3")
    assert failed.is_error and failed.content == "Exit code 3\nnope"
    assert failed.meta["exit_code"] == 3


async def test_background_requests_are_refused(call: Any) -> None:
    result = await call("Bash", command="sleep 1", run_in_background=True)
    assert result.is_error and "run_in_background is not supported" in result.content


async def test_output_is_capped_head_and_tail_in_bounded_memory(project: Path, ctx: Any) -> None:
    from agentframe_claude_tools import ClaudeTools, ClaudeToolsOptions

    tools = ClaudeTools(ClaudeToolsOptions(root=project, output_chars=1000))
    command = "echo FIRST; head -c 50000000 /dev/zero | tr '\\0' x; echo; echo LAST"
    result = await tools.dispatch(ToolCall("1", "Bash", {"command": command}), ctx)
    assert not result.is_error
    assert result.content.startswith("FIRST\n") and result.content.endswith("\nLAST")
    assert "bytes of output omitted" in result.content or "characters omitted" in result.content
    assert len(result.content) < 1200


def _pids(path: Path) -> list[int]:
    return [int(p) for p in path.read_text().split()]


async def test_timeout_kills_the_group_children_included(project: Path, ctx: Any) -> None:
    """The shell starts a child that traps (ignores) SIGTERM and a grandchild that sleeps
    in the background; both write their pid. At the timeout every one of them is gone."""
    from agentframe_claude_tools import ClaudeTools, ClaudeToolsOptions

    tools = ClaudeTools(ClaudeToolsOptions(root=project))
    command = (
        'bash -c \'trap "" TERM; echo $$ >> pids; '
        "(sleep 300 & echo $! >> pids; wait) ; sleep 300' & "
        "echo $$ >> pids; echo started; wait"
    )
    started = time.monotonic()
    result = await tools.dispatch(ToolCall("1", "Bash", {"command": command, "timeout": 1500}), ctx)
    took = time.monotonic() - started
    assert result.is_error and "timed out after 1.5 s" in result.content
    assert "started" in result.content  # the output until then is kept
    pids = _pids(project / "pids")
    assert len(pids) == 3, pids
    for _ in range(50):  # the kernel reaps asynchronously; allow it a moment
        if not any(pid_alive(p) for p in pids):
            break
        await asyncio.sleep(0.1)
    assert not any(pid_alive(p) for p in pids), [p for p in pids if pid_alive(p)]
    assert took < 15, took


async def test_what_a_finished_command_left_running_is_killed(call: Any, project: Path) -> None:
    result = await call("Bash", command="sleep 300 & echo $! > bg; echo done")
    assert result.content == "done"
    (pid,) = _pids(project / "bg")
    for _ in range(50):
        if not pid_alive(pid):
            break
        await asyncio.sleep(0.1)
    assert not pid_alive(pid)


async def test_a_cancelled_call_kills_its_group(project: Path, ctx: Any) -> None:
    """The loop's own timeout cancels the dispatch: the command does not outlive it."""
    from agentframe_claude_tools import ClaudeTools

    tools = ClaudeTools(root=project)
    call = ToolCall("1", "Bash", {"command": "echo $$ > me; sleep 300"})
    task = asyncio.create_task(tools.dispatch(call, ctx))
    for _ in range(100):
        if (project / "me").exists() and (project / "me").read_text().strip():
            break
        await asyncio.sleep(0.05)
    (pid,) = _pids(project / "me")
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    for _ in range(50):
        if not pid_alive(pid):
            break
        await asyncio.sleep(0.1)
    assert not pid_alive(pid)


async def test_a_vanished_project_folder_is_an_error_result(tmp_path: Path, ctx: Any) -> None:
    from agentframe_claude_tools import ClaudeTools

    gone = tmp_path / "gone"
    gone.mkdir()
    tools = ClaudeTools(root=gone)
    gone.rmdir()
    result = await tools.dispatch(ToolCall("1", "Bash", {"command": "true"}), ctx)
    assert result.is_error and "cannot start" in result.content
