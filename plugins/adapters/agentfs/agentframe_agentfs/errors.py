"""What can go wrong on either side of the folder, each error naming the file involved.

The waiting errors are also `TimeoutError`s: to a caller's retry policy, a drainer that died or
never started is the same as an answer that did not come in time, only known sooner.
"""

from __future__ import annotations

from pathlib import Path

from agentframe_core import AgentframeError

__all__ = [
    "DrainerFailedError",
    "DrainerLostError",
    "InvalidTaskIdError",
    "MalformedAnswerError",
    "MalformedTaskError",
    "NoDrainerError",
    "TaskTimeoutError",
]


class InvalidTaskIdError(AgentframeError, ValueError):
    """A task id that is not 64 lowercase hex characters: never turned into a path."""

    def __init__(self, value: object) -> None:
        super().__init__(f"invalid task id {value!r}: a task id is 64 lowercase hex characters")


class MalformedAnswerError(AgentframeError):
    """An answer file that cannot be used; the waiter reports it and asks again."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        super().__init__(f"{path}: malformed answer: {reason}")


class MalformedTaskError(AgentframeError):
    """A task envelope a drainer cannot read; it is set aside, never answered."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        super().__init__(f"{path}: malformed task envelope: {reason}")


class DrainerFailedError(AgentframeError):
    """The drainer's own model failed on this task and said so in the answer's `error`."""

    def __init__(self, path: Path, error: str) -> None:
        self.path = path
        super().__init__(f"the drainer could not answer {path.name}: {error}")


class TaskTimeoutError(AgentframeError, TimeoutError):
    """No `.done` sentinel appeared within `timeout_seconds`."""

    def __init__(self, task_file: Path, timeout: float) -> None:
        self.task_file = task_file
        super().__init__(
            f"no answer to {task_file} after {timeout:g}s (no .done sentinel appeared in "
            f"{task_file.parent.parent / 'agent_outbox'}); is a drainer running?"
        )


class DrainerLostError(AgentframeError, TimeoutError):
    """Every drainer heartbeat went stale (or was removed) while a task was waiting."""

    def __init__(self, task_file: Path, detail: str, grace: float) -> None:
        self.task_file = task_file
        super().__init__(
            f"gave up on {task_file}: no drainer is alive to answer it ({detail}; "
            f"heartbeat_grace: {grace:g}s); start one with "
            f"`agentframe agent-mode serve --dir {task_file.parent.parent}`"
        )


class NoDrainerError(AgentframeError, TimeoutError):
    """`heartbeat: required` and no drainer heartbeat appeared within the grace."""

    def __init__(self, task_file: Path, grace: float) -> None:
        self.task_file = task_file
        root = task_file.parent.parent
        super().__init__(
            f"no drainer is running for {root} (no heartbeat within {grace:g}s) and the adapter "
            f"has `heartbeat: required`; the task waits in {task_file}. Start one with "
            f"`agentframe agent-mode serve --dir {root} --config <a config whose adapter is a "
            f"real model>`, or set `heartbeat: auto` to let a coding-assistant skill drain it"
        )
