"""How many `agentframe mcp serve` levels the work in progress runs under.

A project whose `.mcp.json` serves its own agents, and whose stack uses `use: mcp`, calls
itself: each served call runs an agent whose tools start `mcp serve` again, without end. So
every MCP request this package sends says how deep it is: a stdio server is started with
`AGENTFRAME_MCP_DEPTH` in its environment, and each `tools/call` carries the depth in its
`_meta`. `mcp serve` takes the deeper of the two for a call, runs the agent at that depth
(its own MCP servers get one more), and refuses a call past `--max-depth`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from mcp.types import RequestParamsMeta

__all__ = ["ENV", "META", "current", "of_call", "request_meta", "serving"]

ENV = "AGENTFRAME_MCP_DEPTH"
META = "agentframe/depth"
_LIMIT = 1000  # a larger marker is junk: read as this
_current: ContextVar[int | None] = ContextVar("agentframe_mcp_depth", default=None)


def _parse(value: Any) -> int:
    if isinstance(value, bool):
        return 0
    try:
        return min(max(int(value), 0), _LIMIT)
    except (TypeError, ValueError):
        return 0


def current() -> int:
    """The depth of the work in progress: that of the call being served, else the process's
    (0 for an agentframe no MCP client started)."""
    depth = _current.get()
    return depth if depth is not None else _parse(os.environ.get(ENV, 0))


def request_meta() -> RequestParamsMeta:
    """The `_meta` of a request this process sends: one level deeper than the work in progress."""
    meta: RequestParamsMeta = {"agentframe/depth": current() + 1}  # type: ignore[typeddict-unknown-key]
    return meta


def of_call(meta: Mapping[str, Any] | None) -> int:
    """The depth of a served call: the deeper of the request's `_meta` and the process's."""
    return max(_parse((meta or {}).get(META, 0)), current())


@contextmanager
def serving(depth: int) -> Iterator[None]:
    """Run a served call at `depth`: the MCP servers its agent uses are one deeper."""
    token = _current.set(depth)
    try:
        yield
    finally:
        _current.reset(token)
