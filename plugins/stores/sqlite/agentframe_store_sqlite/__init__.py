"""agentframe's embedded session store: one SQLite file (`store: {use: sqlite}`).

Names are imported on first use, so that loading the plugin module to list what it registers
does not import sqlite3.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .errors import NewerSchemaError, StoreBusyError, StoreFileError
    from .schema import SCHEMA_VERSION
    from .store import SqliteStore

_LAZY = {
    "SCHEMA_VERSION": ".schema",
    "NewerSchemaError": ".errors",
    "StoreBusyError": ".errors",
    "StoreFileError": ".errors",
    "SqliteStore": ".store",
}

__all__ = [
    "SCHEMA_VERSION",
    "NewerSchemaError",
    "SqliteStore",
    "StoreBusyError",
    "StoreFileError",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'agentframe_store_sqlite' has no attribute {name!r}")
    return getattr(importlib.import_module(module, __name__), name)
