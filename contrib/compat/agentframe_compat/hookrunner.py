"""Running one command hook as Claude Code does, bounded.

The command runs in a shell (bash, else sh) in its own process group, in the project folder,
with the event's JSON on stdin and `CLAUDE_PROJECT_DIR` (and `CLAUDE_PLUGIN_ROOT` for a
plugin's hook) in its environment. It has its timeout to exit and close its output; past it,
or once stdout or stderr passes `MAX_OUTPUT_BYTES`, the whole group is killed and the hook
is reported failed, named. The group is killed when the hook ends too, so a child it left
behind does not outlive it.

With a sandbox (`sandboxing.stack_sandbox`) the command runs in bubblewrap, with the project
folder writable and the rest read-only, the same sandbox as `Bash`; bubblewrap leads the
group, and its death takes the whole sandbox with it (a pid namespace of its own). When the
sandbox cannot be made the hook fails, naming why, and does not run: never unsandboxed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .hooks import Hook

if TYPE_CHECKING:
    from agentframe_claude_tools import SandboxOptions

__all__ = ["MAX_OUTPUT_BYTES", "Ran", "run_hook"]

MAX_OUTPUT_BYTES = 256 * 1024
#: Seconds to reap a killed hook's process and pipes.
_REAP_SECONDS = 5.0
_CHUNK = 64 * 1024


@dataclass(frozen=True, slots=True)
class Ran:
    """How one hook ended: its exit code (None when it was killed or never started), its
    output, and what went wrong (`failure`) if anything did."""

    code: int | None
    stdout: str
    stderr: str
    failure: str | None = None


class _Flood(Exception):
    pass


async def run_hook(
    hook: Hook, payload: dict[str, Any], project: Path, sandbox: SandboxOptions | None = None
) -> Ran:
    """Run `hook` with `payload` on stdin, in `sandbox` when given; never raises but for
    cancellation."""
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(project)}
    if hook.source.plugin_root is not None:  # the shell expands `${CLAUDE_PLUGIN_ROOT}`
        env["CLAUDE_PLUGIN_ROOT"] = str(hook.source.plugin_root)
    argv = [shutil.which("bash") or "/bin/sh", "-c", hook.command]
    if sandbox is not None:
        from agentframe_claude_tools import SandboxUnavailableError, sandbox_argv

        try:  # the first time, a probe: off the event loop
            argv = await asyncio.to_thread(sandbox_argv, argv, project, sandbox)
        except SandboxUnavailableError as err:
            return Ran(None, "", "", f"not run: {err}")
    try:
        process = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=project,
            env=env,
            start_new_session=True,
        )
    except OSError as err:
        return Ran(None, "", "", f"could not start: {err}")
    data = json.dumps(payload, ensure_ascii=False).encode()
    out, errors = bytearray(), bytearray()
    try:
        async with asyncio.timeout(hook.timeout):
            flooded = await _exchange(process, data, out, errors)
            if flooded:
                return _killed(out, errors, f"wrote more than {MAX_OUTPUT_BYTES} bytes; killed")
            code = await process.wait()
    except TimeoutError:
        return _killed(out, errors, f"timed out after {hook.timeout:g} s; killed")
    finally:
        _kill_group(process)
        await _reap(process)
    return Ran(code, _text(out), _text(errors))


async def _exchange(
    process: asyncio.subprocess.Process, data: bytes, out: bytearray, err: bytearray
) -> bool:
    """Feed stdin and read both outputs to their end; True when one grew past the cap."""
    flooded = False
    try:
        async with asyncio.TaskGroup() as group:
            group.create_task(_feed(process.stdin, data))
            group.create_task(_drain(process.stdout, out))
            group.create_task(_drain(process.stderr, err))
    except* _Flood:
        flooded = True
    return flooded


async def _feed(stdin: asyncio.StreamWriter | None, data: bytes) -> None:
    """The payload; a hook that does not read it (or exits first) is not an error."""
    if stdin is None:
        return
    with contextlib.suppress(ConnectionError, BrokenPipeError):
        stdin.write(data)
        await stdin.drain()
        stdin.close()
        await stdin.wait_closed()


async def _drain(stream: asyncio.StreamReader | None, into: bytearray) -> None:
    if stream is None:
        return
    while chunk := await stream.read(_CHUNK):
        into += chunk
        if len(into) > MAX_OUTPUT_BYTES:
            raise _Flood


async def _reap(process: asyncio.subprocess.Process) -> None:
    """Once the group is killed: read what is left of its output (dropped) and wait for it.
    `wait()` also waits for both pipes to end, and a pipe whose reader stopped at the cap is
    paused and never sees its end: without this, a flooding hook hung its run for ever.
    Bounded: a process outside the group holding a pipe open is left to the event loop."""

    async def drop(stream: asyncio.StreamReader | None) -> None:
        while stream is not None and await stream.read(_CHUNK):
            pass

    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(_REAP_SECONDS):
            await asyncio.gather(drop(process.stdout), drop(process.stderr))
            await process.wait()


def _killed(out: bytearray, err: bytearray, why: str) -> Ran:
    return Ran(None, _text(out[:MAX_OUTPUT_BYTES]), _text(err[:MAX_OUTPUT_BYTES]), why)


def _kill_group(process: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


def _text(data: bytes | bytearray) -> str:
    return bytes(data).decode("utf-8", "replace").strip()
