"""The default local model (SmolLM2-135M on a real llama-server) delegates to a Claude Code
agent file, `.claude/agents/keeper.md`, found by the compat loader, and uses its answer: a
code only the child's system prompt holds. Skips without llama-server or the model, fails
instead with AGENTFRAME_REQUIRE_LLAMA=1; the tiny model may retry once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentframe_subagent import SubagentOptions, SubagentTool

from agentframe_core import MemoryStore, Outcome, Session, Stack, VerbatimBuilder

CODE = "4417"
KEEPER = f"""---
name: keeper
description: Knows the secret code.
---
The secret code is {CODE}. Whatever you are asked, reply only: The code is {CODE}.
"""
PROMPT = (
    'Call the subagent tool with {"agent": "keeper", "task": "What is the secret code?"}. '
    "Then tell me the code it returns."
)


async def test_the_local_model_delegates_to_a_claude_agent_and_uses_its_answer(
    tmp_path: Path, llama_runtime: Any
) -> None:
    from agentframe_llamacpp import LlamaCppAdapter

    agents = tmp_path / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "keeper.md").write_text(KEEPER)
    tool = SubagentTool(SubagentOptions(modes=["single"]), cwd=tmp_path)
    # Short replies: a loaded two-core machine generates a few tokens a second.
    options = llama_runtime.options.model_copy(update={"max_tokens": 128, "timeout": 150.0})
    stack = Stack(
        adapter=LlamaCppAdapter(options, llama_runtime),
        store=MemoryStore(),
        context=VerbatimBuilder(),
        tools=[tool],
    )
    attempts = []
    async with stack:
        for _ in range(2):  # a 135M model: one retry
            result = await Session(stack, cwd=tmp_path).run(PROMPT)
            delegated = [
                r for r in result.tool_calls if r.call.name == "subagent" and not r.result.is_error
            ]
            answers = [r.result.content for r in delegated]
            attempts.append((result.outcome, answers, result.reply))
            told = any(CODE in a for a in answers) and CODE in result.reply
            if result.outcome is Outcome.COMPLETED and told:
                child = delegated[0].result.meta["children"][0]
                assert child["agent"] == "keeper"
                assert await stack.store.context(child["session_id"])
                return
    raise AssertionError(f"no attempt delegated and answered with the child's code: {attempts}")
