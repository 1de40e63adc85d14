"""agentframe agent mode: an LLM adapter whose answers come from whoever drains a folder.

`AgentFSAdapter` writes each request as a task file and waits for its answer file; `Drainer`
answers a folder's tasks with another adapter; the `SKILL.md` shipped in `skill/` teaches a
coding assistant to answer them with its subagents. The file formats are in `contract`.
"""

from .adapter import AgentFSAdapter, AgentFSOptions
from .contract import Folder, task_id
from .drainer import Drainer, DrainerSettings
from .errors import (
    DrainerFailedError,
    DrainerLostError,
    InvalidTaskIdError,
    MalformedAnswerError,
    MalformedTaskError,
    NoDrainerError,
    TaskTimeoutError,
)

__all__ = [
    "AgentFSAdapter",
    "AgentFSOptions",
    "Drainer",
    "DrainerFailedError",
    "DrainerLostError",
    "DrainerSettings",
    "Folder",
    "InvalidTaskIdError",
    "MalformedAnswerError",
    "MalformedTaskError",
    "NoDrainerError",
    "TaskTimeoutError",
    "task_id",
]
