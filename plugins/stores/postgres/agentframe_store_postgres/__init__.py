"""agentframe's shared session store: PostgreSQL (`store: {use: postgres}`).

Names are imported on first use, so that loading the plugin module to list what it registers
does not import psycopg.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .errors import NewerSchemaError, StoreDatabaseError
    from .schema import SCHEMA_VERSION
    from .store import PostgresStore

_LAZY = {
    "SCHEMA_VERSION": ".schema",
    "NewerSchemaError": ".errors",
    "StoreDatabaseError": ".errors",
    "PostgresStore": ".store",
}

__all__ = ["SCHEMA_VERSION", "NewerSchemaError", "PostgresStore", "StoreDatabaseError"]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'agentframe_store_postgres' has no attribute {name!r}")
    return getattr(importlib.import_module(module, __name__), name)
