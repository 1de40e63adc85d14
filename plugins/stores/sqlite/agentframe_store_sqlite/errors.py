"""What can go wrong with the file itself, each said with the path and what to do."""

from __future__ import annotations

from agentframe_core import AgentframeError

__all__ = ["NewerSchemaError", "StoreBusyError", "StoreFileError"]


class StoreFileError(AgentframeError):
    """The database file cannot be used as a session store; the message says why."""


class NewerSchemaError(StoreFileError):
    """The file was written by a newer release of this plugin."""


class StoreBusyError(StoreFileError):
    """Another process held the write lock for longer than the busy timeout."""
