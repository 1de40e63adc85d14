"""The default local model (SmolLM2-135M on a real llama-server) runs as a Claude Code agent
file, `.claude/agents/reader.md` with `tools: Read`, read by the compat loader: it gets this
plugin's Read, reads a file with it and answers with what only the file holds. Skips without
llama-server or the model, fails instead with AGENTFRAME_REQUIRE_LLAMA=1; the tiny model has
three tries, each with a seed of its own (one seed gives one reply, on a given server state)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from agentframe_claude_tools import ClaudeTools

from agentframe_core import MemoryStore, Outcome, Session, Stack, VerbatimBuilder

CODE = "5023"
READER = """---
name: reader
description: Reads files and reports what they say.
tools: Read
---
You answer questions about files. Use the Read tool to read a file, then answer from it.
"""
PROMPT = 'Call the Read tool with {"file_path": "notes.txt"}. Then tell me the code it shows.'


@pytest.fixture(scope="session")
def llama_runtime() -> Any:
    """The real llama-server with SmolLM2, shared by the whole test session."""
    from agentframe_llamacpp.testing import shared_runtime

    return shared_runtime()


async def test_the_local_model_reads_a_file_with_read(tmp_path: Path, llama_runtime: Any) -> None:
    from agentframe_compat import ClaudeLoader
    from agentframe_llamacpp import LlamaCppAdapter

    (tmp_path / ".claude" / "agents").mkdir(parents=True)
    (tmp_path / ".claude" / "agents" / "reader.md").write_text(READER)
    (tmp_path / "notes.txt").write_text(f"The secret code is {CODE}.\n")
    (reader,) = [d for d in ClaudeLoader().discover(tmp_path) if d.name == "reader"]
    assert reader.tools == ["Read"]
    # Short replies: a loaded two-core machine generates a few tokens a second.
    attempts = []
    for seed in (42, 7, 1234):  # a 135M model: it may cut its answer at the token limit
        options = llama_runtime.options.model_copy(
            update={"max_tokens": 96, "timeout": 150.0, "seed": seed}
        )
        stack = Stack(
            adapter=LlamaCppAdapter(options, llama_runtime),
            store=MemoryStore(),
            context=VerbatimBuilder(),
            tools=[ClaudeTools(root=tmp_path)],
        )
        async with stack:
            result = await Session(stack, agent=reader, cwd=tmp_path).run(PROMPT)
            reads = [
                r for r in result.tool_calls if r.call.name == "Read" and not r.result.is_error
            ]
            attempts.append((result.outcome, [r.result.content for r in reads], result.reply))
            if reads and CODE in reads[0].result.content and result.outcome is Outcome.COMPLETED:
                assert reads[0].result.content == f"     1→The secret code is {CODE}."
                return
    raise AssertionError(f"no attempt read the file with Read and answered: {attempts}")
