"""`agentframe mcp serve`: agents as MCP tools, so an assistant that speaks MCP can delegate.

Each selected agent is a tool `{task}` -> its answer, run on the configured stack. Each call is
a new session in the store; the result's `_meta["agentframe"]` holds the session id, outcome,
turns and token usage. While it runs, the client hears progress and log messages
(`serve_reports`); cancelling the request cancels the run; the agent's own questions go to
the client as elicitation (`serve_questions`). Each agent is also a prompt (its
instructions and the task, for the client's own model), and the store's sessions are
resources (`serve_resources`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import sys
import warnings
from collections.abc import AsyncIterator
from importlib.metadata import version
from pathlib import Path
from typing import Any

from mcp import types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError

from agentframe_core import AgentDefinition, Outcome, RunResult, Session, Stack, find_agents
from agentframe_core.cli import App

from . import depth
from .serve_questions import QuestionAsker
from .serve_reports import CallReport, LogLevels, install_log_bridge, reporting_stack
from .serve_resources import ServedResources

__all__ = ["AgentServer", "serve_agents"]

log = logging.getLogger("agentframe.mcp.serve")

MAX_TASK_CHARS = 100_000
_TASK_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"task": {"type": "string", "description": "What the agent should do."}},
    "required": ["task"],
    "additionalProperties": False,
}
_TASK_ARGUMENT = types.PromptArgument(
    name="task", description="What the agent should do.", required=True
)
_ANSWERED = (Outcome.COMPLETED, Outcome.TERMINAL_TOOL)


class AgentServer:
    """The MCP handlers over one stack and a fixed set of agents."""

    def __init__(
        self, stack: Stack, agents: list[AgentDefinition], cwd: Path, max_depth: int = 2
    ) -> None:
        self.stack, self.cwd, self.max_depth = stack, cwd, max_depth
        self.agents = {agent.name: agent for agent in agents}
        self.resources = ServedResources(stack.store, self.agents)
        self.levels = LogLevels()

    def server(self) -> Server[Any]:
        @contextlib.asynccontextmanager
        async def lifespan(_: Server[Any]) -> AsyncIterator[None]:
            try:
                yield None
            finally:
                await self.stack.aclose()

        install_log_bridge()
        with warnings.catch_warnings():  # logging is deprecated only from 2026-07-28 on
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            return Server(
                "agentframe",
                version=version("agentframe-mcp"),
                instructions="Each tool is an agentframe agent: give it a task, get its answer. "
                "Each agent is also a prompt; the sessions of runs are resources.",
                lifespan=lifespan,
                on_list_tools=self.list_tools,
                on_call_tool=self.call_tool,
                on_list_prompts=self.list_prompts,
                on_get_prompt=self.get_prompt,
                on_list_resources=self.list_resources,
                on_list_resource_templates=self.list_resource_templates,
                on_read_resource=self.read_resource,
                on_completion=self.complete,
                on_set_logging_level=self.set_logging_level,
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
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
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
        report = CallReport(
            ctx.session, ctx.request_id, self.levels.minimum(ctx.session), agent.name
        )
        session = Session(reporting_stack(self.stack, report), agent=agent, cwd=self.cwd)
        try:
            async with report.sending():
                report.log("info", f"{agent.name}: started session {session.id}")
                with depth.serving(level):
                    result = await session.run(
                        task,
                        on_tool=report.tool,
                        on_question=QuestionAsker(ctx.session, ctx.request_id),
                    )
                report.log(
                    "info", f"{agent.name}: {result.outcome.value} in {result.turns} turn(s)"
                )
        except asyncio.CancelledError:
            log.info("the client cancelled %s on session %s", agent.name, session.id)
            raise
        except Exception as err:
            log.exception("agent %s failed on session %s", agent.name, session.id)
            return _error(
                f"agent {agent.name} failed: {type(err).__name__}: {err}",
                {"session_id": session.id, "outcome": "error"},
            )
        return _answer(result)

    # -- prompts: each agent's instructions and a task, for the client's own model -------------

    async def list_prompts(
        self, ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        return types.ListPromptsResult(
            prompts=[
                types.Prompt(
                    name=name,
                    description=agent.description,
                    arguments=[_TASK_ARGUMENT],
                )
                for name, agent in self.agents.items()
            ]
        )

    async def get_prompt(
        self, ctx: Any, params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        agent = self.agents.get(params.name)
        if agent is None:
            known = ", ".join(self.agents) or "none"
            raise MCPError(types.INVALID_PARAMS, f"no agent {params.name!r}; offered: {known}")
        task = (params.arguments or {}).get("task", "")
        if not task.strip() or len(task) > MAX_TASK_CHARS:
            raise MCPError(types.INVALID_PARAMS, f"`task` must be 1 to {MAX_TASK_CHARS} characters")
        instructions = agent.prompt.strip() or agent.description
        return types.GetPromptResult(
            description=agent.description,
            messages=[
                types.PromptMessage(
                    role="user",
                    content=types.TextContent(text=f"{instructions}\n\n## Task\n\n{task}"),
                )
            ],
        )

    # -- resources, completion, logging --------------------------------------------------------

    async def list_resources(
        self, ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        return await self.resources.list(params.cursor if params else None)

    async def list_resource_templates(
        self, ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        return self.resources.templates()

    async def read_resource(
        self, ctx: Any, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        return await self.resources.read(str(params.uri))

    async def complete(self, ctx: Any, params: types.CompleteRequestParams) -> types.CompleteResult:
        return await self.resources.complete(params)

    async def set_logging_level(
        self, ctx: ServerRequestContext[Any], params: types.SetLevelRequestParams
    ) -> types.EmptyResult:
        self.levels.set(ctx.session, params.level)
        return types.EmptyResult()


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
    config = uvicorn.Config(app, log_level="warning")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(2048)
        bound = sock.getsockname()[1]
        shown = f"[{host}]" if family == socket.AF_INET6 else host
        print(f"listening on http://{shown}:{bound}/mcp", file=sys.stderr, flush=True)
        await uvicorn.Server(config).serve(sockets=[sock])
