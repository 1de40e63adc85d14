"""Registers the `sqlite` store. Importing this module does not import sqlite3."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PositiveFloat, field_validator

from agentframe_core import Register, data_dir, hookimpl


def default_path() -> Path:
    """`$XDG_DATA_HOME/agentframe/sessions.db`, else `~/.local/share/agentframe/sessions.db`."""
    return data_dir() / "sessions.db"


class SqliteOptions(BaseModel):
    """`store: {use: sqlite, path: ..., busy_timeout: 5, synchronous: full}`"""

    model_config = ConfigDict(extra="forbid")

    path: Path = Field(
        default_factory=default_path,
        description="The database file (created with its folder if missing). "
        "Default: $XDG_DATA_HOME/agentframe/sessions.db, else "
        "~/.local/share/agentframe/sessions.db.",
    )
    busy_timeout: PositiveFloat = Field(
        default=5.0,
        description="Seconds a write waits while another process holds the write lock.",
    )
    synchronous: Literal["full", "normal"] = Field(
        default="full",
        description="full: a write that returned survives a power loss. normal: faster; "
        "survives a crash of the process, but a power loss may lose the last writes.",
    )

    @field_validator("path")
    @classmethod
    def _expand(cls, path: Path) -> Path:
        return path.expanduser()


def _sqlite_store(options: SqliteOptions) -> Any:
    from .store import SqliteStore

    return SqliteStore(
        options.path, busy_timeout=options.busy_timeout, synchronous=options.synchronous
    )


@hookimpl
def agentframe_stores(register: Register) -> None:
    register("sqlite", _sqlite_store, options=SqliteOptions)
