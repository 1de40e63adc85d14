"""Requests that need the client's answer midway (SEP-2322, protocol 2026-07-28).

On a 2026-07-28 connection a server does not send `elicitation/create` or
`sampling/createMessage` during a call: it answers `tools/call` (or `prompts/get`,
`resources/read`) with an `InputRequiredResult` naming what it needs, and the client sends
the request again, with a new id, the answers, and the server's `requestState` echoed byte
for byte. The SDK's `Client` drives those rounds; the `ClientSession` a connection holds
hands the `InputRequiredResult` back, so they are driven here, with the SDK's own driver and
the session's callbacks: the peer's elicitation and sampling policies answer as they do
when a 2025-11-25 server asks.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

import mcp_types as types
from mcp import ClientSession
from mcp.client import ClientRequestContext
from mcp.client._input_required import run_input_required_driver

__all__ = ["MAX_ROUNDS", "resolved"]

#: Rounds one request may take before it fails (the SDK's `Client` default).
MAX_ROUNDS = 10

ResultT = TypeVar("ResultT")
Send = Callable[
    [types.InputResponses | None, str | None], Awaitable[ResultT | types.InputRequiredResult]
]


async def resolved(session: ClientSession, send: Send[ResultT]) -> ResultT:
    """The final result of a request: `send(answers, request_state)` sends it (the first
    time with neither), again for as long as the server needs input."""
    first = await send(None, None)
    if not isinstance(first, types.InputRequiredResult):
        return first

    async def answer(
        key: str, request: types.InputRequest
    ) -> types.InputResponse | types.ErrorData:
        meta = request.params.meta if request.params else None
        context = ClientRequestContext(session=session, request_id=key, meta=meta)
        return await session.dispatch_input_request(context, request)

    return await run_input_required_driver(
        first, dispatch=answer, retry=send, max_rounds=MAX_ROUNDS
    )
