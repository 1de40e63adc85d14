"""`agentframe doctor` for `store: {use: postgres}`: connect once and ask the server one
question, so that an unreachable database is a finding, not "everything looks fine"."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

import psycopg

from agentframe_core import AgentframeError, Diagnosis

from .dsn import scrub
from .errors import StoreDatabaseError

if TYPE_CHECKING:
    from agentframe_core import PartConfig

__all__ = ["check_store"]

NAME = "store postgres"
FIX = (
    "start the server or fix the connection string (`dsn` / `dsn_env`); "
    "`connect_timeout` bounds the wait"
)


def check_store(part: PartConfig) -> Diagnosis:
    """One connection and `SELECT version()`, within the store's `connect_timeout` (every
    message masks the password, as the store's own errors do)."""
    from .store import PostgresStore

    try:
        store = part.build()
    except (AgentframeError, ValueError) as err:
        return Diagnosis(NAME, False, str(err), FIX)
    assert isinstance(store, PostgresStore)

    async def probe() -> str:
        started = time.monotonic()
        try:
            db = await store.connect()
            try:
                cursor = await db.execute("SELECT current_setting('server_version')")
                found = await cursor.fetchone()
            finally:
                await db.close()
        finally:
            await store.aclose()
        version = found[0] if found else "?"
        return f"{store!r}: PostgreSQL {version}, answered in {time.monotonic() - started:.2f}s"

    try:
        return Diagnosis(NAME, True, asyncio.run(probe()))
    except StoreDatabaseError as err:  # its message already masks the password
        return Diagnosis(NAME, False, str(err), FIX)
    except psycopg.Error as err:
        said = scrub(str(err), part.options.connection_string())
        return Diagnosis(NAME, False, f"{store!r}: the server did not answer: {said}", FIX)
