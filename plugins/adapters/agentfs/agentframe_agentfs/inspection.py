"""What a folder holds, for the `status`, `list`, `show` and `retry` commands."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from agentframe_core import AgentframeError

from . import claims
from .contract import (
    ANSWER_SUFFIX,
    DONE_SUFFIX,
    MAX_ENVELOPE_BYTES,
    TASK_SUFFIX,
    Folder,
    TaskPaths,
    atomic_write,
    is_task_id,
    load_json_object,
    set_aside,
    utc_now,
)
from .liveness import read_beats

__all__ = ["TaskInfo", "list_tasks", "resolve", "retry", "show", "status"]

State = Literal["pending", "claimed", "answered", "failed"]
STATES: tuple[State, ...] = ("pending", "claimed", "answered", "failed")


@dataclass(frozen=True, slots=True)
class TaskInfo:
    id: str
    state: State
    step: str
    context_label: str
    created_at: str
    #: The drainer holding the claim, for claimed tasks.
    drainer: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "state": self.state,
            "step": self.step,
            "context_label": self.context_label,
            "created_at": self.created_at,
            "drainer": self.drainer,
        }


def _require(folder: Folder) -> None:
    if not folder.inbox.is_dir():
        raise AgentframeError(
            f"no agent-mode folder at {folder.root} (no agent_inbox/ in it); "
            "pass --dir or set AGENTFRAME_AGENTFS_DIR"
        )


def _ids(folder: Folder) -> list[str]:
    return sorted(
        name.removesuffix(TASK_SUFFIX)
        for name in os.listdir(folder.inbox)
        if name.endswith(TASK_SUFFIX) and is_task_id(name.removesuffix(TASK_SUFFIX))
    )


def _load(path: Path) -> dict[str, Any]:
    return load_json_object(path, MAX_ENVELOPE_BYTES)


def _info(paths: TaskPaths) -> TaskInfo:
    envelope = _load(paths.task)
    drainer = None
    state: State
    if paths.done.exists():
        state = "failed" if _load(paths.answer).get("error") is not None else "answered"
    else:
        claim = claims.read_claim(paths)
        state = "claimed" if claim is not None else "pending"
        drainer = claim.drainer if claim is not None else None
    return TaskInfo(
        paths.id,
        state,
        str(envelope.get("step", "")),
        str(envelope.get("context_label", "")),
        str(envelope.get("created_at", "")),
        drainer,
    )


def list_tasks(folder: Folder, states: set[str] | None = None) -> list[TaskInfo]:
    """Every task in the inbox, oldest first."""
    _require(folder)
    infos = [_info(folder.paths(task_id)) for task_id in _ids(folder)]
    infos = [info for info in infos if states is None or info.state in states]
    return sorted(infos, key=lambda info: (info.created_at, info.id))


def status(folder: Folder, grace: float) -> dict[str, Any]:
    """Task counts by state, and the drainers that beat (alive within `grace`)."""
    counts = dict.fromkeys(STATES, 0)
    for info in list_tasks(folder):
        counts[info.state] += 1
    drainers = [
        {
            **beat.info,
            "drainer": beat.drainer,
            "age": round(beat.age, 3),
            "alive": beat.age <= grace,
        }
        for beat in read_beats(folder, with_info=True)
    ]
    return {"dir": str(folder.root), "tasks": counts, "drainers": drainers}


def resolve(folder: Folder, prefix: str) -> str:
    """The one task id that starts with `prefix` (as `show` and `retry` accept)."""
    _require(folder)
    prefix = prefix.strip().lower()
    if not re.fullmatch(r"[0-9a-f]{1,64}", prefix):
        raise AgentframeError(f"{prefix!r} is not a task id or a prefix of one (hex characters)")
    found = {
        name.split(".", 1)[0]
        for folder_path in (folder.inbox, folder.outbox)
        for name in os.listdir(folder_path)
        if name.startswith(prefix) and name.endswith((TASK_SUFFIX, ANSWER_SUFFIX, DONE_SUFFIX))
    }
    found = {task_id for task_id in found if is_task_id(task_id)}
    if not found:
        raise AgentframeError(f"no task {prefix} in {folder.root}")
    if len(found) > 1:
        raise AgentframeError(f"{prefix} is ambiguous: {len(found)} tasks start with it")
    return found.pop()


def show(folder: Folder, task_id: str) -> dict[str, Any]:
    paths = folder.paths(task_id)
    info = _info(paths)
    return {
        **info.to_dict(),
        "task_file": str(paths.task),
        "answer_file": str(paths.answer),
        "task": _load(paths.task) or None,
        "answer": (_load(paths.answer) or None) if paths.done.exists() else None,
    }


def retry(folder: Folder, task_id: str) -> None:
    """Ask again: set the answer aside and free the task, so that a drainer takes it anew."""
    paths = folder.paths(task_id)
    if not paths.task.exists():
        raise AgentframeError(
            f"no task envelope {paths.task}: nothing to ask again (the adapter writes it anew "
            "when it next needs this answer)"
        )
    set_aside(paths)
    envelope = _load(paths.task)
    if envelope:  # rewritten, so that drainers watching the inbox notice it at once
        envelope["created_at"] = utc_now()
        atomic_write(paths.task, json.dumps(envelope, ensure_ascii=False, indent=1).encode())
