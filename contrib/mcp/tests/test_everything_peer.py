"""`@modelcontextprotocol/server-everything` asks agentframe's client for what it can:
elicitation (under the `defaults` policy: its form has required fields without defaults, so
it is declined, and multi-select fields the kernel's questions cannot render), sampling by
the stack's model, progress, roots, resources, prompts."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentframe_mcp import McpToolset

from agentframe_core import MemoryStore, RunContext, Stack, ToolCall, VerbatimBuilder
from agentframe_core.testing import ScriptedAdapter

Make = Callable[..., McpToolset]


async def test_server_everything_asks_and_is_answered(
    make_toolset: Make, everything: dict[str, Any]
) -> None:
    toolset = make_toolset(
        {"everything": everything}, elicitation="defaults", sampling={"policy": "auto"}
    )
    events: list[tuple[str, dict[str, Any]]] = []
    stack = Stack(
        adapter=ScriptedAdapter(replies=["a sampled reply"]),
        store=MemoryStore(),
        context=VerbatimBuilder(),
    )
    ctx = RunContext("e1", stack, on_event=lambda kind, data: events.append((kind, data)))
    names = {t.name for t in await toolset.tools(ctx)}
    assert {"list_mcp_resources", "read_mcp_resource", "get_mcp_prompt"} <= names

    async def call(tool: str, **arguments: Any) -> Any:
        return await toolset.dispatch(ToolCall("c", tool, arguments), ctx)

    asked = await call("mcp_everything_trigger-elicitation-request")
    assert "User declined to provide the requested information" in asked.content
    sampled = await call("mcp_everything_trigger-sampling-request", prompt="hi", maxTokens=50)
    assert "a sampled reply" in sampled.content
    await call("mcp_everything_trigger-long-running-operation", duration=1, steps=2)
    progress = [data["progress"] for kind, data in events if kind == "mcp_progress"]
    assert progress == [1, 2]
    roots = await call("mcp_everything_get-roots-list")
    assert Path.cwd().resolve().as_uri() in roots.content
    listed = json.loads((await call("list_mcp_resources", server="everything")).content)
    read = await call("read_mcp_resource", server="everything", uri=listed[0]["uri"])
    assert not read.is_error and read.content.startswith(f"[resource {listed[0]['uri']}")
    prompts = json.loads((await call("list_mcp_prompts", server="everything")).content)
    simple = next(p for p in prompts if not any(a["required"] for a in p["arguments"]))
    got = await call("get_mcp_prompt", server="everything", name=simple["name"])
    assert not got.is_error and got.content.startswith("[user]")
