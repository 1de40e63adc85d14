"""Servers for the tests: `agentframe serve` on a scripted stack, in-process (uvicorn on
127.0.0.1, in the test's event loop) or as a real `agentframe serve` process."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from agentframe_otel.testing import span_exporter  # noqa: F401 (a fixture)
from agentframe_serve import Keys, ServeSettings, build_app
from agentframe_serve.server import uvicorn_config

from agentframe_core import PluginHost, build_stack, find_agents, load_config
from agentframe_core.testing import cli_command, eventually, eventually_async

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))  # servekit and servetools (`use: functions` in the stacks)

from servekit import environment, free_port, write_project  # noqa: E402


@dataclass
class Served:
    url: str
    root: Path
    stack: Any
    clients: list[Any] = field(default_factory=list)

    @property
    def requests(self) -> list[Any]:
        """What the scripted model was asked."""
        return list(self.stack.adapter.requests)

    def client(self, key: str = "unused") -> Any:
        from openai import AsyncOpenAI

        client = AsyncOpenAI(base_url=f"{self.url}/v1", api_key=key, max_retries=0)
        self.clients.append(client)
        return client

    async def entries(self, store_id: str) -> list[tuple[str, str]]:
        return [(e.kind.value, e.content) for e in await self.stack.store.context(store_id)]


@pytest.fixture
async def serve(tmp_path: Path) -> AsyncIterator[Callable[..., Any]]:
    """`await serve(replies, ...)`: an in-process server on a scripted stack."""
    running: list[tuple[uvicorn.Server, asyncio.Task[None]]] = []
    made: list[Served] = []

    async def start(
        replies: list[Any],
        *,
        tools: list[str] | None = None,
        serve: Any = None,
        environ: dict[str, str] | None = None,
        host: str = "127.0.0.1",
        extra_tools: list[dict[str, Any]] | None = None,
    ) -> Served:
        root = write_project(tmp_path, replies, tools=tools, serve=serve, extra_tools=extra_tools)
        plugins = PluginHost()
        config = load_config(plugins, root / "agentframe.yaml")
        stack = build_stack(config, plugins)
        agents = find_agents(plugins, config, root).definitions
        settings = ServeSettings.model_validate(serve or {})
        keys = Keys.load(settings, environ or {})
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        app = build_app(
            stack,
            agents,
            root,
            settings,
            keys,
            loopback=host == "127.0.0.1",
            base_url=url,
            config=config,
        )
        server = uvicorn.Server(uvicorn_config(app, settings, host="127.0.0.1", port=port))
        task = asyncio.create_task(server.serve())
        running.append((server, task))

        def started() -> bool:
            if task.done():
                task.result()
            return bool(server.started)

        await eventually_async(started, what="the server to start")
        made.append(Served(url, root, stack))
        return made[-1]

    yield start
    for served in made:
        for client in served.clients:
            await client.close()
    for server, task in running:
        server.should_exit = True
        await asyncio.wait_for(task, 30)


@pytest.fixture
def serve_process(tmp_path: Path) -> Iterator[Callable[..., Any]]:
    """`serve_process(replies, ...)`: a real `agentframe serve` process, and its URL."""
    started: list[subprocess.Popen[str]] = []

    def start(
        replies: list[Any],
        *args: str,
        tools: list[str] | None = None,
        verbose: bool = False,
        store: dict[str, Any] | None = None,
        serve: Any = None,
        **env: str,
    ) -> tuple[subprocess.Popen[str], str]:
        root = write_project(tmp_path, replies, tools=tools, store=store, serve=serve)
        port = free_port()
        process = subprocess.Popen(
            cli_command(*(["-vv"] if verbose else []), "serve", "--port", str(port), *args),
            cwd=root,
            env=environment(root, **env),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        started.append(process)
        url = f"http://127.0.0.1:{port}"

        def healthy() -> bool:
            if process.poll() is not None:
                raise AssertionError(f"serve exited: {process.communicate()[1]}")
            try:
                return httpx.get(f"{url}/healthz", timeout=1).status_code == 200
            except httpx.HTTPError:
                return False

        eventually(healthy, 60, what="serve to answer /healthz")
        return process, url

    yield start
    for process in started:
        if process.poll() is None:
            process.kill()
        process.communicate(timeout=30)
