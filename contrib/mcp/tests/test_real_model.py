"""The default local model (SmolLM2-135M on a real llama-server) calls the time server's
`mcp_time_get_current_time` and answers with the time. Skips without llama-server or the
model, fails instead with AGENTFRAME_REQUIRE_LLAMA=1; the tiny model may retry once."""

from __future__ import annotations

import json
from typing import Any

import pytest
from agentframe_mcp import McpOptions, McpToolset

from agentframe_core import MemoryStore, Outcome, RunResult, Session, Stack, VerbatimBuilder

PROMPT = "What is the current time in UTC? Use the mcp_time_get_current_time tool."


async def ask(stack: Stack) -> tuple[RunResult, str | None]:
    """One run; the HH:MM the tool returned, if it was called successfully."""
    result = await Session(stack).run(PROMPT)
    for record in result.tool_calls:
        if record.call.name == "mcp_time_get_current_time" and not record.result.is_error:
            when = json.loads(record.result.content)["datetime"]  # 2026-12-01T00:18:05+00:00
            return result, when[11:16]
    return result, None


@pytest.fixture(scope="session")
def llama_runtime() -> Any:
    """The real llama-server with SmolLM2, shared by the whole test session."""
    from agentframe_llamacpp.testing import shared_runtime

    return shared_runtime()


async def test_the_local_model_calls_an_mcp_tool_and_answers_with_the_time(
    time_server: dict[str, Any], llama_runtime: Any
) -> None:
    from agentframe_llamacpp import LlamaCppAdapter

    runtime = llama_runtime
    toolset = McpToolset(
        McpOptions(
            project=False,
            servers={"time": time_server},
            allow_tools=["mcp_time_get_current_time"],
        )
    )
    stack = Stack(
        adapter=LlamaCppAdapter(runtime.options, runtime),
        store=MemoryStore(),
        context=VerbatimBuilder(),
        tools=[toolset],
    )
    attempts = []
    async with stack:
        for _ in range(2):  # a 135M model: one retry
            result, hhmm = await ask(stack)
            attempts.append(
                (result.outcome, [r.call.name for r in result.tool_calls], result.reply)
            )
            answered = hhmm is not None and hhmm in result.reply
            if result.outcome is Outcome.COMPLETED and answered:
                return
    raise AssertionError(f"no attempt called the tool and answered with its time: {attempts}")
