"""Registers the `postgres` store. Importing this module does not import psycopg."""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, PositiveFloat, model_validator

from agentframe_core import Register, hookimpl

if TYPE_CHECKING:
    from agentframe_core import Config, Diagnosis

#: A schema name we put in `search_path` unquoted: lower-case letters, digits and `_`.
SCHEMA_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,39}$")


class PostgresOptions(BaseModel):
    """`store: {use: postgres, dsn_env: AGENTFRAME_PG_DSN, pool_min: 1, pool_max: 10}`"""

    model_config = ConfigDict(extra="forbid")

    dsn: str | None = Field(
        default=None,
        description="libpq connection string or URI (postgresql://user:pw@host/db). Prefer "
        "`dsn_env`, so that the password stays out of the config file.",
        repr=False,
    )
    dsn_env: str | None = Field(
        default=None,
        description="Name of the environment variable holding the connection string "
        "(used when `dsn` is not set).",
    )
    pool_min: int = Field(default=1, ge=0, le=1000, description="Connections kept open.")
    pool_max: int = Field(default=10, ge=1, le=1000, description="Most connections opened.")
    schema_: str = Field(
        default="agentframe",
        alias="schema",
        description="The PostgreSQL schema holding the tables (created if missing): "
        "lower-case letters, digits and _, at most 40 characters.",
    )
    connect_timeout: PositiveFloat = Field(
        default=10.0, description="Seconds to wait for the first connection."
    )

    @model_validator(mode="after")
    def _check(self) -> PostgresOptions:
        if self.dsn is None and self.dsn_env is None:
            raise ValueError("set `dsn` or `dsn_env` (the variable holding the connection string)")
        if self.pool_max < self.pool_min:
            raise ValueError(f"pool_max ({self.pool_max}) is below pool_min ({self.pool_min})")
        if not SCHEMA_NAME.match(self.schema_):
            raise ValueError(
                f"schema {self.schema_[:60]!r}: use lower-case letters, digits and _ "
                "(at most 40, not starting with a digit)"
            )
        return self

    def connection_string(self) -> str:
        """The DSN, read from the environment when `dsn_env` names it."""
        if self.dsn is not None:
            return self.dsn
        assert self.dsn_env is not None
        value = os.environ.get(self.dsn_env)
        if not value:
            raise ValueError(f"store.dsn_env: the environment variable {self.dsn_env} is not set")
        return value


def _postgres_store(options: PostgresOptions) -> Any:
    from .store import PostgresStore

    return PostgresStore(
        options.connection_string(),
        schema=options.schema_,
        pool_min=options.pool_min,
        pool_max=options.pool_max,
        connect_timeout=options.connect_timeout,
    )


@hookimpl
def agentframe_stores(register: Register) -> None:
    register("postgres", _postgres_store, options=PostgresOptions)


@hookimpl
def agentframe_doctor(config: Config) -> list[Diagnosis] | None:
    """Is the configured PostgreSQL store reachable (one connection, one query)?"""
    if not isinstance(config.store.options, PostgresOptions):
        return None
    from .doctor import check_store

    return [check_store(config.store)]
