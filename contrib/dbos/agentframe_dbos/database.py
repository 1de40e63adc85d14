"""The DBOS system database as the commands meet it: an engine for our own rows (the executor
leases), and its failures said in one line, the URL's password masked, never a traceback."""

from __future__ import annotations

import logging
from typing import Any

from agentframe_core import AgentframeError, redact_text, redact_url

__all__ = ["SystemDatabaseError", "database_error", "missing", "quiet_dbos", "system_engine"]

#: Seconds to wait for a connection to a PostgreSQL system database.
CONNECT_TIMEOUT = 10

#: What SQLite and PostgreSQL say when the system database (or its tables) was never made.
_MISSING = ("no such table", "does not exist")


class SystemDatabaseError(AgentframeError):
    """The DBOS system database cannot be reached or used; the message says why."""


def system_engine(url: str) -> Any:
    """A SQLAlchemy engine on `url` (DBOS's own driver for PostgreSQL: psycopg 3)."""
    import sqlalchemy as sa

    if url.startswith("sqlite"):
        return sa.create_engine(url)
    target = sa.make_url(url).set(drivername="postgresql+psycopg")
    return sa.create_engine(target, connect_args={"connect_timeout": CONNECT_TIMEOUT})


def _said(err: BaseException) -> str:
    """The driver's own first line (SQLAlchemy wraps it in `(psycopg.X) ...`)."""
    inner = getattr(err, "orig", None) or err
    first = (str(inner).strip().splitlines() or [type(inner).__name__])[0]
    return redact_text(first[:300])


def missing(err: BaseException) -> bool:
    """Was the system database (or its tables) never created?"""
    return any(word in str(err) for word in _MISSING)


def database_error(url: str, err: BaseException) -> SystemDatabaseError:
    """`err`, raised while using the system database at `url`, as one line."""
    if missing(err):
        return SystemDatabaseError(
            f"no DBOS system database at {redact_url(url)} yet: start `agentframe worker` "
            "once first"
        )
    said = _said(err)
    verb = "reach" if "connect" in said.lower() else "use"
    return SystemDatabaseError(f"cannot {verb} the DBOS system database {redact_url(url)}: {said}")


def quiet_dbos() -> None:
    """DBOS logs a failed connection with its traceback before raising; the command says it
    once, in one line (`database_error`), so DBOS's own records lose their tracebacks."""
    logging.getLogger("dbos").addFilter(_drop_traceback)


def _drop_traceback(record: logging.LogRecord) -> bool:
    record.exc_info, record.exc_text = None, None
    return record.levelno < logging.ERROR or "connect" not in record.getMessage().lower()
