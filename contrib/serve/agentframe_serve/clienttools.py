"""Tools a client sends with its request: offered to the model, run by the client.

A call to one parks (a pending result, the loop's own mechanism for results that arrive
later) and, the tool being terminal, ends the run: the client receives it as `tool_calls`,
and its next request carries the result, stored as the parked call's lifted result."""

from __future__ import annotations

from typing import Any

from agentframe_core import RunContext, Tool, ToolCall, ToolCallRecord, ToolResult

__all__ = ["ClientTools", "client_calls", "client_tool"]


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
