"""What can go wrong with the database itself, each said without the password."""

from __future__ import annotations

from agentframe_core import AgentframeError

__all__ = ["NewerSchemaError", "StoreDatabaseError"]


class StoreDatabaseError(AgentframeError):
    """The database cannot be used as a session store; the message says why."""


class NewerSchemaError(StoreDatabaseError):
    """The schema was written by a newer release of this plugin."""
