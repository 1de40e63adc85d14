"""Tools a client sends with its request: offered to the model, run by the client.

A call to one parks (a pending result, the loop's own mechanism for results that arrive
later) and, the tool being terminal, ends the run: the client receives it as `tool_calls`,
and its next request carries the result, stored as the parked call's lifted result."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from agentframe_core import RunContext, Tool, ToolCall, ToolCallRecord, ToolResult

from .errors import ApiError

__all__ = ["ClientTools", "client_calls", "client_tool", "sent_calls"]


class ClientTools:
    def __init__(self, tools: list[Tool]) -> None:
        self._tools = tools

    async def tools(self, ctx: RunContext) -> list[Tool]:
        return self._tools

    async def dispatch(self, call: ToolCall, ctx: RunContext) -> ToolResult:
        return ToolResult("", pending=True, meta={"client_tool": True})


def client_tool(name: str, description: str, parameters: dict[str, Any]) -> Tool:
    # writes=False: it runs on the client, so the agent's plan mode has nothing to refuse.
    return Tool(
        name=name, description=description, parameters=parameters, terminal=True, writes=False
    )


def client_calls(records: list[ToolCallRecord]) -> list[ToolCall]:
    """The calls of a run that wait for the client."""
    return [r.call for r in records if r.result.meta.get("client_tool")]


def sent_calls(calls: Iterable[Any], path: str) -> list[ToolCall]:
    """The tool calls an assistant message of the client's history carries (each with `id`,
    `function.name` and `function.arguments`, a JSON object as text); a bad one is a 400
    naming `path[j].function.arguments`."""
    decoded = []
    for j, call in enumerate(calls):
        where = f"{path}[{j}].function.arguments"
        try:
            arguments = json.loads(call.function.arguments or "{}")
        except ValueError:
            raise ApiError(400, f"{where}: not JSON", param=where) from None
        if not isinstance(arguments, dict):
            raise ApiError(400, f"{where}: must be a JSON object", param=where)
        decoded.append(ToolCall(call.id, call.function.name, arguments))
    return decoded
