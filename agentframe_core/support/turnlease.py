"""One turn at a time per session: the turn lease, held in the store.

Several processes may run the same session at once (`agentframe run --session S` twice). The
loop's contract is coalescing: one turn at a time, later arrivals join at the next model call.
So a run first enqueues its message, then waits for the session's *turn lease*:

- the holder renews it while its turn lasts (every third of `ttl`), so a killed holder blocks
  the others for at most `ttl` seconds; a store whose leases live in this process and its
  one event loop (`LocalLeasingStore`, e.g. `MemoryStore`) gives a lease with no expiry,
  never renewed, and tells of a deletion at once (no keeper task, no timer);
- a waiter that gets the lease looks whether the turn that just ended claimed and answered its
  message; if so it reports that answer (`RunResult.coalesced`) instead of running a turn;
- `Store.delete` of a session whose lease is held leaves a tombstone until the holder releases
  it (or the lease expires): every write to that session raises `SessionDeletedError`, so a
  running turn stops and nothing is ever written to a deleted session.

The store side is the `LeasingStore` capability (`contract/protocols.py`); this module is
the loop side.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, cast

from ..contract.errors import AgentframeError
from ..contract.model import Entry, EntryKind
from ..contract.protocols import LeasingStore, LocalLeasingStore, Store

__all__ = ["SessionDeletedError", "TurnLeaseLostError", "hold_turn", "new_holder", "reply_to"]

log = logging.getLogger("agentframe.turnlease")

#: Seconds between two attempts to take a busy lease, at most.
_MAX_POLL = 0.2


class SessionDeletedError(AgentframeError):
    """The session was deleted while a turn ran (or waited): nothing more is written to it."""


class TurnLeaseLostError(AgentframeError):
    """The turn lease expired and another process took it (this one was stalled for longer
    than the lease's ttl): the turn stops rather than interleave with the new holder's."""


def new_holder() -> str:
    """A holder id, unique across processes."""
    return uuid.uuid4().hex


@dataclass(slots=True)
class _Holding:
    """What the keeper and the body share: whether the body still runs, why the lease was
    lost, and whether the keeper cancelled the body for it."""

    task: asyncio.Task[Any] | None
    running: bool = True
    lost: AgentframeError | None = None
    cancelled: bool = False


@contextlib.asynccontextmanager
async def hold_turn(store: Store, session_id: str, holder: str, ttl: float) -> AsyncIterator[None]:
    """Wait for the session's turn lease, keep it while the body runs, release it.

    A store without leases (not a `LeasingStore`) gives no such guarantee: the body runs at
    once. A `LocalLeasingStore` lease has no expiry and is not renewed: the store tells of a
    deletion at once. Any other lease is renewed every `ttl / 3` by a keeper task. If the
    lease is lost (deleted session, or expired and taken), the body is cancelled and
    `SessionDeletedError` or `TurnLeaseLostError` is raised in its place."""
    kind = _lease_kind(store)
    if kind is None:
        yield
        return
    leases = cast(LeasingStore, store)
    local = kind is LocalLeasingStore
    await _acquire(leases, session_id, holder, math.inf if local else ttl)
    holding = _Holding(asyncio.current_task())
    keeper: asyncio.Task[None] | None = None
    stop: Callable[[], object]
    if local:
        lost = partial(_lose_to_deletion, holding, session_id)
        stop = cast(LocalLeasingStore, store).watch_lease(session_id, holder, lost)
    else:
        keeper = asyncio.create_task(_keep(leases, session_id, holder, ttl, holding))
        stop = keeper.cancel
    try:
        yield
    except BaseException as error:
        holding.running = False  # from here on nothing cancels the body
        _raise_why_lost(holding, error)
        raise
    finally:
        holding.running = False
        stop()
        if keeper is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await keeper
        with contextlib.suppress(Exception):
            await asyncio.shield(leases.release_lease(session_id, holder))


_KINDS: dict[type, type | None] = {}


def _lease_kind(store: Store) -> type | None:
    """LocalLeasingStore, LeasingStore or None: the capability the store's class declares,
    looked up once per class (a protocol check costs microseconds, and this is every run)."""
    try:
        return _KINDS[type(store)]
    except KeyError:
        kind = next((k for k in (LocalLeasingStore, LeasingStore) if isinstance(store, k)), None)
        _KINDS[type(store)] = kind
        return kind


def _deleted(session_id: str) -> SessionDeletedError:
    return SessionDeletedError(f"session {session_id!r} was deleted during this turn")


def _lose_to_deletion(holding: _Holding, session_id: str) -> None:
    _lose(holding, _deleted(session_id))


def _lose(holding: _Holding, why: AgentframeError) -> None:
    """The lease is lost: record why, and cancel the body if it still runs. (The body is
    then suspended at an await, where the cancellation lands.)"""
    holding.lost = why
    log.warning("%s", why)
    if holding.running and holding.task is not None:
        holding.cancelled = True
        holding.task.cancel()


def _raise_why_lost(holding: _Holding, error: BaseException) -> None:
    """If the keeper cancelled the body, take its cancellation back and raise the reason
    instead (unless someone else cancelled the task too)."""
    if holding.lost is None or not holding.cancelled or holding.task is None:
        return
    if holding.task.uncancel() > 0 and isinstance(error, asyncio.CancelledError):
        return  # also cancelled from outside: stay cancelled
    raise holding.lost from None


async def _acquire(store: LeasingStore, session_id: str, holder: str, ttl: float) -> None:
    pause = 0.005
    while not await store.acquire_lease(session_id, holder, ttl):
        await asyncio.sleep(pause)
        pause = min(pause * 2, _MAX_POLL, ttl / 4)


async def _keep(
    store: LeasingStore, session_id: str, holder: str, ttl: float, holding: _Holding
) -> None:
    """Renew every third of the ttl; on loss, say why (`_lose`)."""
    while True:
        await asyncio.sleep(ttl / 3)
        try:
            if await store.acquire_lease(session_id, holder, ttl):
                continue
            deleted = await store.lease_revoked(session_id)
        except Exception as err:  # a busy store: try again at the next period, within the ttl
            log.warning("session %r: could not renew the turn lease: %s", session_id, err)
            continue
        _lose(
            holding,
            _deleted(session_id)
            if deleted
            else TurnLeaseLostError(
                f"session {session_id!r}: this process was stalled for more than {ttl:g} s "
                "and another run took the turn"
            ),
        )
        return


def reply_to(context: list[Entry], message: Entry) -> str | None:
    """The answer the session already gave to `message`: the first reply after it that ended
    a model call's work (text, no tool calls, not a re-prompted malformed reply). Later turns
    may have answered other messages since; theirs are not this one's. None if unanswered."""
    # from the end: the message is recent, the session may be long
    index = next((i for i in range(len(context) - 1, -1, -1) if context[i].id == message.id), None)
    if index is None:
        return None
    for position in range(index + 1, len(context)):
        entry = context[position]
        if entry.kind is not EntryKind.ASSISTANT or not entry.content or entry.tag:
            continue
        following = context[position + 1] if position + 1 < len(context) else None
        if following is None or following.kind is not EntryKind.TOOL_CALL:
            return entry.content
    return None
