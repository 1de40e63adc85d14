"""Which session a request continues, and what it adds to it.

A chat UI resends the whole conversation every turn. The server remembers a digest of each
conversation as the client will resend it (its messages and the answer it got), per key, in
the configured store (`records`: a restarted server and its replicas recognise it too),
with the session's last entry then; a request whose leading messages match one continues
that session, and only the messages after them are stored. A session is continued only when
its whole history is still the one the digest describes: one that has moved on since (its
last entry is another) or was deleted is not. Two clients of one key whose chats began alike
("hi" -> "Hello!") give one digest to two sessions: neither is continued by it, each client's
next message starts a new session (with the history it resent), never the other's. A
session named by the client (`session_id` field or `X-Session-Id` header) continues it with
the messages after the request's last assistant message.

Sessions are per key: in the store, a session is `<key name>.<id>`, so one key's id never
reaches another key's session (it is unknown there, exactly like an id never used).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from agentframe_core import Entry, EntryKind, Session, Store, ToolCall

from .errors import ApiError
from .records import Records

__all__ = ["ClientMessage", "Conversations", "add_messages", "parked_calls"]

_CLIENT_ID = re.compile(r"^[A-Za-z0-9_.:-]{1,128}$")


@dataclass(frozen=True, slots=True)
class ClientMessage:
    """One message as a client sends it, whatever the API; `path` names it in errors."""

    role: str  # system | user | assistant | tool
    content: str
    path: str
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None

    def canonical(self) -> str:
        calls = [[c.id, c.name, c.arguments] for c in self.tool_calls]
        return json.dumps(
            [self.role, self.content, calls, self.tool_call_id], sort_keys=True, default=str
        )


def check_client_id(value: str, param: str) -> str:
    if not _CLIENT_ID.match(value):
        raise ApiError(400, f"{param}: 1 to 128 letters, digits or `_.:-` characters", param=param)
    return value


#: At most this many store reads to recognise a conversation: the longest prefixes first (a
#: resent conversation is the remembered one and the few messages added since).
RECOGNISE_LOOKUPS = 8


class Conversations:
    """Session ids per key, and the conversations seen (their digests, in the store)."""

    def __init__(self, store: Store) -> None:
        self.store, self.records = store, Records(store)

    @staticmethod
    def store_id(owner: str, client_id: str) -> str:
        return f"{owner}.{client_id}"

    @staticmethod
    def client_id(owner: str, store_id: str) -> str | None:
        prefix = f"{owner}."
        return store_id[len(prefix) :] if store_id.startswith(prefix) else None

    async def exists(self, owner: str, client_id: str) -> bool:
        return bool(await self.store.context(self.store_id(owner, client_id)))

    async def _last_entry(self, owner: str, client_id: str) -> str | None:
        """The id of the session's last entry (None: no such session)."""
        entries = await self.store.context(self.store_id(owner, client_id))
        return entries[-1].id if entries else None

    def _digests(self, owner: str, messages: Sequence[ClientMessage]) -> list[str]:
        """The digest of each prefix of `messages`: [digest(m[:1]), digest(m[:2]), ...]."""
        running = hashlib.sha256(owner.encode())
        out: list[str] = []
        for message in messages:
            running.update(message.canonical().encode("utf-8", "surrogateescape") + b"\0")
            out.append(running.copy().hexdigest())
        return out

    async def recognise(
        self, owner: str, messages: Sequence[ClientMessage]
    ) -> tuple[str, int, str] | None:
        """The session whose conversation the request's leading messages are, how many
        messages that is (fewer than all: something new must follow), and its digest; None
        when the longest remembered prefix names two sessions or one whose history has
        moved on (a new session is started)."""
        digests = self._digests(owner, messages)
        for count in range(len(messages) - 1, max(0, len(messages) - 1 - RECOGNISE_LOOKUPS), -1):
            seen = await self.records.values("conversation", owner, digests[count - 1])
            if not seen:
                continue
            sessions = {value.get("session") for value in seen}
            client_id, last = seen[-1].get("session"), seen[-1].get("last")
            if len(sessions) > 1 or not isinstance(client_id, str) or not isinstance(last, str):
                return None
            if await self._last_entry(owner, client_id) != last:
                return None
            return client_id, count, digests[count - 1]
        return None

    async def remember(
        self,
        owner: str,
        messages: Sequence[ClientMessage],
        client_id: str,
        replaces: str | None = None,
    ) -> None:
        """`messages` (the request's and the answer it got) continue `client_id`, as it is
        now (its last entry); the digest it was recognised by (`replaces`) is no longer
        needed."""
        last = await self._last_entry(owner, client_id)
        if not messages or last is None:
            return
        digest = self._digests(owner, messages)[-1]
        await self.records.put("conversation", owner, digest, {"session": client_id, "last": last})
        if replaces is not None and replaces != digest:
            await self.records.drop("conversation", owner, replaces)


async def parked_calls(store: Store, session_id: str) -> dict[str, str]:
    """Calls of the session still waiting for their result from the client: id -> tool."""
    parked: dict[str, str] = {}
    for entry in await store.context(session_id):
        if entry.kind is EntryKind.TOOL_RESULT and entry.tool_call_id:
            if entry.meta.get("client_tool"):
                parked[entry.tool_call_id] = entry.tool_name or ""
            else:
                parked.pop(entry.tool_call_id, None)
    return parked


async def add_messages(
    session: Session, messages: Sequence[ClientMessage], parked: dict[str, str]
) -> None:
    """Store what the client added but a last user message (the run sends that one): user
    messages and the results of parked calls are queued (a result is the lifted result of
    its parked call), earlier turns of a conversation the server never saw are appended as
    history."""
    if not messages or messages[-1].role not in ("user", "tool"):
        raise ApiError(
            400, "messages: the last message must be from the user or a tool", param="messages"
        )
    store, known = session.stack.store, set(parked)
    for message in messages:  # every problem is found before anything is stored
        if message.role == "assistant":
            known.update(c.id for c in message.tool_calls)
        elif message.role == "tool" and (message.tool_call_id or "") not in known:
            param = f"{message.path}.tool_call_id"
            raise ApiError(
                400,
                f"{param}: no call {message.tool_call_id!r} waits for a result here",
                param=param,
            )
    stored = messages[:-1] if messages[-1].role == "user" else messages
    for message in stored:
        role = message.role
        if role == "user":
            await session.send(message.content)
        elif role == "system":
            await session.inject(
                Entry(kind=EntryKind.NOTIFICATION, content=message.content, tag="client-system")
            )
        elif role == "assistant":
            await session.inject(Entry(kind=EntryKind.ASSISTANT, content=message.content))
            for call in message.tool_calls:
                await session.inject(
                    Entry(
                        kind=EntryKind.TOOL_CALL,
                        content=json.dumps(call.arguments, ensure_ascii=False),
                        tool_call_id=call.id,
                        tool_name=call.name,
                    )
                )
        else:
            call_id = message.tool_call_id or ""
            name = parked.get(call_id) or _call_name(messages, call_id)
            result = Entry(
                kind=EntryKind.TOOL_RESULT,
                content=message.content,
                tool_call_id=call_id,
                tool_name=name,
            )
            if call_id in parked:
                await store.enqueue(session.id, result)
            else:
                await session.inject(result)


def _call_name(messages: Sequence[ClientMessage], call_id: str) -> str:
    for message in messages:
        for call in message.tool_calls:
            if call.id == call_id:
                return call.name
    return ""
