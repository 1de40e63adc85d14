"""Real child processes for multi-process tests: a thread reads each child's stdout line by
line (so a test can wait for a line with a timeout, and kill the child at any moment without
losing what it said before it died), and another keeps the end of its stderr for messages.

A line cut short by a kill (no newline) is dropped: the child never finished saying it.
"""

from __future__ import annotations

import collections
import queue
import subprocess
import threading
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import IO

__all__ = ["Child", "start_together"]

#: Characters of a child's stderr kept for a failure message.
STDERR_TAIL = 4000


class Child:
    """One child process, started at once; use it as a context manager to be sure it is
    killed when the test stops early."""

    def __init__(
        self,
        args: Sequence[str | Path],
        *,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
        stdin: bool = False,
    ) -> None:
        self.process = subprocess.Popen(
            [str(arg) for arg in args],
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=dict(env) if env is not None else None,
            cwd=cwd,
        )
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._ended = False
        self._stderr: collections.deque[str] = collections.deque()
        assert self.process.stdout is not None and self.process.stderr is not None
        self._readers = [
            threading.Thread(target=self._pump, args=(self.process.stdout,), daemon=True),
            threading.Thread(target=self._keep_stderr, args=(self.process.stderr,), daemon=True),
        ]
        for reader in self._readers:
            reader.start()

    def _pump(self, stdout: IO[str]) -> None:
        for line in stdout:
            if line.endswith("\n"):
                self._lines.put(line[:-1])
        self._lines.put(None)

    def _keep_stderr(self, stderr: IO[str]) -> None:
        kept = 0
        for chunk in iter(lambda: stderr.readline(512), ""):  # a line at once, not 512 chars
            self._stderr.append(chunk)
            kept += len(chunk)
            while kept - len(self._stderr[0]) >= STDERR_TAIL:
                kept -= len(self._stderr.popleft())

    def line(self, timeout: float) -> str | None:
        """The next whole line of stdout; None once stdout has ended. Raises TimeoutError when
        no line comes within `timeout` seconds."""
        if self._ended:
            return None
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError(f"no line from the child in {timeout} s") from None
        self._ended = line is None
        return line

    def said(self) -> list[str]:
        """The lines the child has said since the last read, without waiting."""
        lines: list[str] = []
        while not self._ended and not self._lines.empty():
            line = self._lines.get_nowait()
            self._ended = line is None
            lines += [] if line is None else [line]
        return lines

    def send(self, line: str) -> None:
        """Write a line to the child's stdin (start it with `stdin=True`)."""
        assert self.process.stdin is not None, "the child was started without stdin"
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def kill(self, timeout: float = 30) -> list[str]:
        """SIGKILL the child; the whole lines it said before it died and were not read yet."""
        self.process.kill()
        return self.wait(timeout)

    def wait(self, timeout: float = 120) -> list[str]:
        """Wait for the child to exit; the lines it said that were not read yet."""
        self.process.wait(timeout=timeout)
        lines: list[str] = []
        while (line := self.line(timeout)) is not None:
            lines.append(line)
        return lines

    def finish_ok(self, timeout: float = 120) -> list[str]:
        """`wait`, and fail with the end of its stderr unless it exited with status 0."""
        lines = self.wait(timeout)
        assert self.process.returncode == 0, (
            f"the child exited with status {self.process.returncode}: {self.stderr()}"
        )
        return lines

    def stderr(self) -> str:
        """The end of what the child wrote to stderr so far."""
        if self.process.poll() is not None:
            self._readers[1].join(timeout=5)
        return "".join(self._stderr)[-STDERR_TAIL:]

    def __enter__(self) -> Child:
        return self

    def close(self) -> None:
        """Kill the child if it still runs, and close its pipes."""
        if self.process.poll() is None:
            self.kill()
        for pipe in (self.process.stdin, self.process.stdout, self.process.stderr):
            if pipe is not None:
                pipe.close()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def start_together(
    commands: Iterable[Sequence[str | Path]],
    *,
    timeout: float = 120,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
) -> list[list[str]]:
    """Start a child per command, each of which prints `ready` and then waits for a line on
    its stdin; once all are ready, send each `go` at once, so that they race for real. Fails
    with a child's stderr unless every one exits with status 0; the lines each said after
    `ready`."""
    children = [Child(command, env=env, cwd=cwd, stdin=True) for command in commands]
    try:
        for child in children:
            ready = child.line(timeout)
            assert ready == "ready", f"a child did not start: {ready!r} {child.stderr()}"
        for child in children:
            child.send("go")
        return [child.finish_ok(timeout) for child in children]
    finally:
        for child in children:
            child.close()
