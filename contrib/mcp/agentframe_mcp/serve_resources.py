"""`mcp serve`'s resources: the store's sessions (`agentframe://sessions/{id}`, each run a
call made, and the others the store keeps) and the served agents' definitions
(`agentframe://agents/{name}`), with the completion of both templates' variables.

A client that delegated a task can read the session the result's `_meta` names: what the
agent did, tool calls and results included. Listing is paged (`PAGE` per page, most
recently updated first); a session read is capped at `MAX_READ_CHARS` of JSON, keeping the
most recent entries and saying how many older ones were left out.
"""

from __future__ import annotations

import json
import re
from typing import Any

from mcp import types
from mcp.shared.exceptions import MCPError

from agentframe_core import AgentDefinition, Entry, Store

__all__ = ["AGENTS_TEMPLATE", "SESSIONS_TEMPLATE", "ServedResources"]

SESSIONS_TEMPLATE = "agentframe://sessions/{id}"
AGENTS_TEMPLATE = "agentframe://agents/{name}"
PAGE = 100
MAX_COMPLETIONS = 100
MAX_READ_CHARS = 1_000_000
RESOURCE_NOT_FOUND = -32002
_SESSION_URI = re.compile(r"agentframe://sessions/([A-Za-z0-9_.-]{1,200})")
_AGENT_URI = re.compile(r"agentframe://agents/([A-Za-z0-9_.-]{1,200})")


class ServedResources:
    """The resource and completion handlers over one store and the served agents."""

    def __init__(self, store: Store, agents: dict[str, AgentDefinition]) -> None:
        self.store, self.agents = store, agents

    async def list(self, cursor: str | None) -> types.ListResourcesResult:
        start = _offset(cursor)
        agents = [
            types.Resource(
                uri=f"agentframe://agents/{name}",
                name=f"agent {name}",
                description=agent.description,
                mime_type="application/json",
            )
            for name, agent in self.agents.items()
        ]
        sessions = [
            types.Resource(
                uri=f"agentframe://sessions/{info.id}",
                name=f"session {info.id}",
                title=info.title,
                description=f"{info.entries} entries",
                mime_type="application/json",
            )
            for info in await self.store.sessions()
            if not info.is_record
        ]
        listed = [*agents, *sessions]
        page = listed[start : start + PAGE]
        more = start + PAGE < len(listed)
        return types.ListResourcesResult(
            resources=page, next_cursor=str(start + PAGE) if more else None
        )

    def templates(self) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(
            resource_templates=[
                types.ResourceTemplate(
                    uri_template=SESSIONS_TEMPLATE,
                    name="session",
                    description="A session of the store: its entries (messages, tool calls "
                    "and results), oldest first.",
                    mime_type="application/json",
                ),
                types.ResourceTemplate(
                    uri_template=AGENTS_TEMPLATE,
                    name="agent",
                    description="A served agent's definition: name, description, prompt.",
                    mime_type="application/json",
                ),
            ]
        )

    async def read(self, uri: str) -> types.ReadResourceResult:
        if match := _SESSION_URI.fullmatch(uri):
            document = await self._session(match[1], uri)
        elif (match := _AGENT_URI.fullmatch(uri)) and match[1] in self.agents:
            agent = self.agents[match[1]]
            document = {
                "name": agent.name,
                "description": agent.description,
                "prompt": agent.prompt,
            }
        else:
            raise _not_found(uri)
        text = json.dumps(document, ensure_ascii=False, default=str)
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, mime_type="application/json", text=text)]
        )

    async def _session(self, session_id: str, uri: str) -> dict[str, Any]:
        entries = [_entry(e) for e in await self.store.context(session_id)]
        if not entries:
            raise _not_found(uri)
        kept, size = 0, 0
        for entry in reversed(entries):
            size += len(json.dumps(entry, ensure_ascii=False, default=str)) + 2
            if size > MAX_READ_CHARS and kept:
                break
            kept += 1
        document: dict[str, Any] = {"session_id": session_id, "entries": entries[-kept:]}
        if kept < len(entries):
            document["omitted"] = len(entries) - kept
            document["note"] = (
                f"the {len(entries) - kept} oldest entries are left out (over "
                f"{MAX_READ_CHARS} characters); `agentframe sessions show {session_id}` has all"
            )
        return document

    async def complete(self, params: types.CompleteRequestParams) -> types.CompleteResult:
        """Agent names, session ids (by prefix), and nothing for a prompt's free-text `task`."""
        ref, argument = params.ref, params.argument
        values: list[str] = []
        if isinstance(ref, types.ResourceTemplateReference):
            if ref.uri == SESSIONS_TEMPLATE and argument.name == "id":
                values = [s.id for s in await self.store.sessions() if not s.is_record]
            elif ref.uri == AGENTS_TEMPLATE and argument.name == "name":
                values = list(self.agents)
        matching = [v for v in values if v.startswith(argument.value)]
        return types.CompleteResult(
            completion=types.Completion(
                values=matching[:MAX_COMPLETIONS],
                total=len(matching),
                has_more=len(matching) > MAX_COMPLETIONS,
            )
        )


def _entry(entry: Entry) -> dict[str, Any]:
    shown: dict[str, Any] = {"kind": entry.kind.value, "content": entry.content}
    if entry.tool_name:
        shown["tool_name"] = entry.tool_name
    if entry.tool_call_id:
        shown["tool_call_id"] = entry.tool_call_id
    shown["created_at"] = entry.created_at
    return shown


def _offset(cursor: str | None) -> int:
    if cursor is None:
        return 0
    if not cursor.isdigit() or len(cursor) > 12:
        raise MCPError(types.INVALID_PARAMS, f"not a cursor this server gave: {cursor[:40]!r}")
    return int(cursor)


def _not_found(uri: str) -> MCPError:
    return MCPError(RESOURCE_NOT_FOUND, "Resource not found", {"uri": uri[:500]})
