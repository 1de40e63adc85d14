"""`agentframe mcp serve`: agents as MCP tools, so an assistant that speaks MCP can delegate.

Each selected agent is a tool `{task}` -> its answer, run on the configured stack. Each call is
a new session in the store; the result's `_meta["agentframe"]` holds the session id, outcome,
turns and token usage.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from mcp import types
from mcp.server.lowlevel import Server

from agentframe_core import AgentDefinition, Outcome, RunResult, Session, Stack, find_agents
from agentframe_core.cli import App

from . import depth

__all__ = ["AgentServer", "serve_agents"]

log = logging.getLogger("agentframe.mcp.serve")

MAX_TASK_CHARS = 100_000
_TASK_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"task": {"type": "string", "description": "What the agent should do."}},
    "required": ["task"],
    "additionalProperties": False,
}
_ANSWERED = (Outcome.COMPLETED, Outcome.TERMINAL_TOOL)


class AgentServer:
    """The MCP handlers over one stack and a fixed set of agents."""

    def __init__(
        self, stack: Stack, agents: list[AgentDefinition], cwd: Path, max_depth: int = 2
    ) -> None:
        self.stack, self.cwd, self.max_depth = stack, cwd, max_depth
        self.agents = {agent.name: agent for agent in agents}

    def server(self) -> Server[Any]:
        @contextlib.asynccontextmanager
        async def lifespan(_: Server[Any]) -> AsyncIterator[None]:
            try:
                yield None
            finally:
                await self.stack.aclose()

        return Server(
            "agentframe",
            instructions="Each tool is an agentframe agent: give it a task, get its answer.",
            lifespan=lifespan,
            on_list_tools=self.list_tools,
            on_call_tool=self.call_tool,
        )

    async def list_tools(
        self, ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[
                types.Tool(name=name, description=agent.description, input_schema=_TASK_SCHEMA)
                for name, agent in self.agents.items()
            ]
        )

    async def call_tool(
        self, ctx: Any, params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        agent = self.agents.get(params.name)
        if agent is None:
            known = ", ".join(self.agents) or "none"
            return _error(f"no agent {params.name!r}; offered: {known}")
        task = (params.arguments or {}).get("task")
        if not isinstance(task, str) or not task.strip():
            return _error("`task` must be a non-empty string")
        if len(task) > MAX_TASK_CHARS:
            return _error(f"`task` is longer than {MAX_TASK_CHARS} characters")
        level = depth.of_call(params.meta)
        if level > self.max_depth:
            log.warning("refused a call to %s nested %d levels deep", agent.name, level)
            return _error(
                f"agentframe mcp serve: a call nested {level} levels deep (past --max-depth "
                f"{self.max_depth}) is refused: an agent served over MCP reached itself through "
                "MCP again (its project's .mcp.json serves its own agents?)",
                {"outcome": "refused", "depth": level},
            )
        session = Session(self.stack, agent=agent, cwd=self.cwd)
        try:
            with depth.serving(level):
                result = await session.run(task)
        except asyncio.CancelledError:
            raise
        except Exception as err:
            log.exception("agent %s failed on session %s", agent.name, session.id)
            return _error(
                f"agent {agent.name} failed: {type(err).__name__}: {err}",
                {"session_id": session.id, "outcome": "error"},
            )
        return _answer(result)


def _answer(result: RunResult) -> types.CallToolResult:
    usage = result.usage
    meta = {
        "session_id": result.session_id,
        "outcome": result.outcome.value,
        "turns": result.turns,
        "usage": usage.to_dict(),
    }
    reply = result.reply or f"(no answer: the run ended with {result.outcome.value})"
    return types.CallToolResult(
        content=[types.TextContent(text=reply)],
        is_error=result.outcome not in _ANSWERED,
        _meta={"agentframe": meta},
    )


def _error(message: str, meta: dict[str, Any] | None = None) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(text=message)],
        is_error=True,
        _meta={"agentframe": meta} if meta else None,
    )


def serve_agents(
    app: App, names: list[str], *, port: int | None, host: str, max_depth: int
) -> None:
    """Serve until stdin closes (stdio) or the process is interrupted (HTTP)."""
    cwd = Path.cwd()
    config = app.config()
    catalog = find_agents(app.host, config, cwd)
    agents = [catalog.get(name) for name in names] if names else catalog.definitions
    server = AgentServer(app.stack(), agents, cwd, max_depth).server()
    if port is None:
        asyncio.run(_stdio(server))
    else:
        asyncio.run(_http(server, host, port))


async def _stdio(server: Server[Any]) -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


async def _http(server: Server[Any], host: str, port: int) -> None:
    import uvicorn

    app = server.streamable_http_app(host=host)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning")
    await uvicorn.Server(config).serve()
