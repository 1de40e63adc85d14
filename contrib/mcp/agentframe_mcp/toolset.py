"""`use: mcp`: the tools of configured MCP servers, as one ToolDispatcher.

Servers start on the first `tools()`, all at once; one that fails is logged and left out (its
tools come back once it starts), so a broken server never takes the others down.
"""

from __future__ import annotations

import asyncio
import logging
import operator
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp import types

from agentframe_core import (
    Closeable,
    RunContext,
    Tool,
    ToolCall,
    ToolResult,
    config_in_project,
    redact_data,
)

from .connection import McpConnection, ServerUnavailableError, State
from .names import exposed_name, unique_names
from .options import HttpServer, McpOptions, StdioServer, mask
from .peer import Peer
from .resources import META_TOOLS, call_meta_tool, meta_tools
from .servers import load_servers

__all__ = ["McpToolset"]

log = logging.getLogger("agentframe.mcp")


class McpToolset:
    def __init__(
        self,
        options: McpOptions,
        cwd: Path | None = None,
        base: Path | None = None,
        *,
        config_file: Path | None = None,
        config_known: bool = False,
    ) -> None:
        """`base`: the folder of the config file holding the inline `servers`, which their
        relative paths mean (when None, the first run tells it: its stack's config file).
        `config_file`: the config in force (None: none) when `config_known`, which says
        whether the project's .mcp.json is read (`config_in_project`); else the first run
        tells it, and the project's servers wait for it."""
        self.options, self._cwd, self._base = options, cwd or Path.cwd(), base
        self._config_file, self._config_known = config_file, config_known
        #: What trust and approvals left out of the project's servers, one line each.
        self.notes: list[str] = []
        sampling = options.sampling.adapter
        self._sampling_model = sampling.build() if sampling is not None else None
        self.connections = self._connect()
        self._started = False
        self._start_lock = asyncio.Lock()
        self._routes: dict[str, tuple[McpConnection, str]] = {}
        self._memo: tuple[list[list[types.Tool]], list[Tool]] | None = None

    def _connect(self) -> dict[str, McpConnection]:
        known = self._config_known
        project = config_in_project(self._config_file, self._cwd) if known else False
        self.notes = []
        servers = load_servers(
            self.options, self._cwd, self._base, project=project, notes=self.notes
        )
        roots = [self._cwd.resolve()] if self.options.roots else []
        return {
            name: McpConnection(
                name,
                config,
                self.options,
                peer=Peer(
                    name,
                    self.options.elicitation,
                    self.options.sampling,
                    roots,
                    self._sampling_model,
                ),
            )
            for name, config in servers.items()
        }

    def learn_config(self, ctx: RunContext) -> None:
        """Before any server started: the inline servers' paths against the run's config
        file, and the project's .mcp.json read if that config is the working folder's own."""
        config = ctx.stack.config
        if self._started or self._config_known:
            return
        file = config.file if config is not None else None
        self._config_file, self._config_known = file, True
        if self._base is None and file is not None:
            self._base = file.resolve().parent
        if self.options.servers or self.options.project is None:
            self.connections = self._connect()

    async def start(self, needed: Callable[[str], bool] | None = None) -> None:
        """Start every server (or those `needed` names) that is not running, concurrently;
        failures are logged."""
        async with self._start_lock:
            waits = [
                self._try_start(c)
                for name, c in self.connections.items()
                if needed is None or needed(name)
            ]
            await asyncio.gather(*waits)
            self._started = True

    async def started(self, name: str, ctx: RunContext) -> McpConnection:
        """The server `name` (a key of `connections`), started for the run `ctx` if it is not
        running: its state says whether it is (a failure is logged, not raised)."""
        self.learn_config(ctx)
        await self.start(lambda server: server == name)
        return self.connections[name]

    async def _try_start(self, connection: McpConnection) -> None:
        if connection.state is State.READY:
            if connection.stale:
                await connection.refresh()
            return
        try:
            await connection.ensure(wait=False)
        except ServerUnavailableError as err:
            log.warning("%s", err)

    async def tools(self, ctx: RunContext) -> list[Tool]:
        """The servers the run's agent may use a tool of are started; an agent whose `tools`
        name none of a server's (`mcp_{server}_...`) never starts it."""
        self.learn_config(ctx)
        agent = ctx.agent
        if agent is None or agent.tools is None:
            return await self.offered()
        prefixes = {name: exposed_name(name, "") for name in self.connections}
        allowed = [tool for tool in agent.tools if agent.allows(tool)]
        return await self.offered(
            lambda name: any(tool.startswith(prefixes[name]) for tool in allowed)
        )

    async def offered(self, needed: Callable[[str], bool] | None = None) -> list[Tool]:
        """The tools of every running server, allowed and named for the model. The same Tool
        objects while no list changed, so the loop's schema validators and prompt stay cached."""
        await self.start(needed)
        ready = [c for c in self.connections.values() if c.state is State.READY]
        lists = [c.tools for c in ready]
        memo = self._memo
        unchanged = memo is not None and len(memo[0]) == len(lists)
        if memo is not None and unchanged and all(map(operator.is_, memo[0], lists)):
            return list(memo[1])
        tools, self._routes = self._collect(ready)
        self._memo = (lists, tools)
        return list(tools)

    def _collect(
        self, ready: list[McpConnection]
    ) -> tuple[list[Tool], dict[str, tuple[McpConnection, str]]]:
        allowed = self.options.tool_allowed
        offered = [
            (c.name, t.name, t, c)
            for c in ready
            for t in c.tools
            if allowed(exposed_name(c.name, t.name))  # first: a denied tool cannot collide
        ]
        names = unique_names((server, tool) for server, tool, _, _ in offered)
        by_pair = {(server, tool): (spec, c) for server, tool, spec, c in offered}
        routes: dict[str, tuple[McpConnection, str]] = {}
        tools: list[Tool] = []
        for exposed, (server, tool) in names.items():
            spec, connection = by_pair[(server, tool)]
            routes[exposed] = (connection, tool)
            tools.append(self._describe(exposed, server, spec))
        for meta in meta_tools(ready, self.options.call_timeout):
            if allowed(meta.name) and meta.name not in routes:
                tools.append(meta)
        return tools, routes

    def _describe(self, exposed: str, server: str, spec: types.Tool) -> Tool:
        """The tool as the model sees it (its schema was checked when it was listed)."""
        schema = dict(spec.input_schema)
        description = spec.description or spec.title or f"{spec.name} (MCP server {server})"
        return Tool(
            name=exposed,
            description=description,
            parameters=schema,
            timeout=self.options.call_timeout + 1.0,  # the server's own timeout answers first
        )

    async def dispatch(self, call: ToolCall, ctx: RunContext) -> ToolResult:
        meta = call.name in META_TOOLS and self.options.tool_allowed(call.name)
        if meta and call.name not in self._routes:
            server = self.connections.get(str(call.arguments.get("server")))
            if server is None:
                return ToolResult(f"no MCP server {call.arguments.get('server')!r}", True)
            return await call_meta_tool(
                call.name, call.arguments, server, self.options.max_resource_bytes
            )
        route = self._routes.get(call.name)
        if route is None:
            if not self._started:
                await self.offered()
                route = self._routes.get(call.name)
            if route is None:
                return ToolResult(f"no MCP tool named {call.name!r}", True)
        connection, tool = route
        return await connection.call(tool, call.arguments, ctx)

    async def aclose(self) -> None:
        """Close every server concurrently: each gets at most `close_timeout` (<= 2 s)."""
        await asyncio.gather(*(c.aclose() for c in self.connections.values()))
        if isinstance(self._sampling_model, Closeable):
            await self._sampling_model.aclose()

    def status(self) -> list[dict[str, Any]]:
        """Each server: its state, error, transport (secrets masked: env and header values
        entirely, URLs, arguments and errors as the kernel masks all output) and tool names."""
        rows = []
        for connection in self.connections.values():
            row = connection.status()
            row.update(describe_server(connection.config))
            row["tools"] = [
                {"name": name, "tool": tool}
                for name, (c, tool) in self._routes.items()
                if c is connection
            ]
            rows.append(redact_data(row))
        return rows


def describe_server(config: StdioServer | HttpServer) -> dict[str, Any]:
    if isinstance(config, StdioServer):
        return {
            "type": "stdio",
            "command": config.command,
            "args": config.args,
            "env": mask(config.env),
        }
    return {"type": config.type, "url": config.url, "headers": mask(config.headers)}
