"""The runtime and adapter with a real llama-server and the real SmolLM2-135M model."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from agentframe_llamacpp import (
    LlamaCppAdapter,
    LlamaRuntime,
    ModelOptions,
    ReserveError,
    ServerStartError,
    UnknownModelError,
)
from agentframe_llamacpp.server import pid_alive
from agentframe_llamacpp.testing import options_for_tests

from agentframe_core import Completion, CompletionRequest, Message
from agentframe_core.testing import AdapterConformance, eventually, eventually_async


def model_path(runtime: LlamaRuntime) -> str:
    found = runtime.store.locate("smollm2", runtime.options.models["smollm2"])
    assert found is not None
    return str(found.path)


def own_runtime(shared: LlamaRuntime, tmp_path: Path, **changes: object) -> LlamaRuntime:
    """A runtime with its own server(s) of the cached model, and its own state folder."""
    options = options_for_tests(
        models={"smollm2": ModelOptions(path=model_path(shared), ctx_size=2048)}, **changes
    )
    return LlamaRuntime(options, models_dir=tmp_path / "models", state_dir=tmp_path / "state")


async def kill(runtime: LlamaRuntime, name: str = "smollm2") -> int:
    """SIGKILL a model's server, and wait until the runtime can see it died."""
    pid = runtime.servers[name].record.pid
    os.kill(pid, signal.SIGKILL)
    assert await runtime.gone(name, within=5.0)
    return pid


# -- talking to the model ----------------------------------------------------------------------


@pytest.fixture
def adapter(llama_runtime: LlamaRuntime) -> LlamaCppAdapter:
    return LlamaCppAdapter(llama_runtime.options, llama_runtime)


async def test_a_chat_reply(adapter: LlamaCppAdapter) -> None:
    request = CompletionRequest(
        [
            Message("system", "You are a helpful assistant."),
            Message("user", "What is the capital of France?"),
        ],
        max_tokens=24,
    )
    completion = await adapter.complete(request)
    assert completion.content.strip()
    assert "paris" in completion.content.lower()
    assert completion.model == "smollm2"
    assert completion.usage.prompt_tokens > 10 and 0 < completion.usage.completion_tokens <= 24


async def test_streaming_delivers_the_reply_token_by_token(adapter: LlamaCppAdapter) -> None:
    request = CompletionRequest([Message("user", "Name three colours.")], max_tokens=24)
    items = [item async for item in adapter.stream(request)]
    *deltas, completion = items
    assert isinstance(completion, Completion)
    assert len(deltas) > 3 and all(isinstance(d, str) for d in deltas)
    assert "".join(str(d) for d in deltas) == completion.content
    tokens = completion.usage.completion_tokens
    assert 0 < tokens <= 24
    # one delta per token, but for a token that carries no text of its own (part of a UTF-8
    # character, or an empty piece): the count of deltas is the count of tokens, nearly
    assert tokens - 2 <= len(deltas) <= tokens, (len(deltas), tokens)


async def test_the_kv_cache_serves_a_growing_conversation(adapter: LlamaCppAdapter) -> None:
    messages = [Message("system", "You are terse. " * 20), Message("user", "Say one word.")]
    first = await adapter.complete(CompletionRequest(messages, max_tokens=8))
    messages += [Message("assistant", first.content), Message("user", "Another word.")]
    second = await adapter.complete(CompletionRequest(messages, max_tokens=8))
    assert second.usage.cached_tokens >= first.usage.prompt_tokens - 1


async def test_constrained_decoding_makes_a_valid_tool_call(adapter: LlamaCppAdapter) -> None:
    """The shape the loop sends for a model without native tools: a tool union schema."""
    schema = {
        "anyOf": [
            {
                "type": "object",
                "properties": {
                    "tool": {"const": "add"},
                    "args": {
                        "type": "object",
                        "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                        "required": ["a", "b"],
                    },
                },
                "required": ["tool", "args"],
            },
            {
                "type": "object",
                "properties": {"answer": {"type": "string"}},
                "required": ["answer"],
            },
        ]
    }
    system = (
        'Tools: add(a: number, b: number) adds two numbers. Reply in JSON: {"tool": "add", '
        '"args": {...}} to call a tool, or {"answer": "..."} to answer.'
    )
    request = CompletionRequest(
        [Message("system", system), Message("user", "What is 2+3? Use the add tool.")],
        response_schema=schema,
        max_tokens=64,
    )
    import json

    reply = json.loads((await adapter.complete(request)).content)
    assert reply == {"tool": "add", "args": {"a": 2, "b": 3}}


async def test_an_unknown_model_name_lists_the_configured_ones(adapter: LlamaCppAdapter) -> None:
    with pytest.raises(UnknownModelError, match=r"'gpt-4' is not configured.*smollm2"):
        await adapter.complete(CompletionRequest([Message("user", "hi")], model="gpt-4"))


class TestLlamaCppConformance(AdapterConformance):
    @pytest.fixture
    def adapter(self, llama_runtime: LlamaRuntime) -> LlamaCppAdapter:
        return LlamaCppAdapter(llama_runtime.options, llama_runtime)


# -- supervision ----------------------------------------------------------------------------------


async def test_a_killed_server_is_restarted(llama_runtime: LlamaRuntime, tmp_path: Path) -> None:
    runtime = own_runtime(llama_runtime, tmp_path, restart_backoff=0.1)
    adapter = LlamaCppAdapter(runtime.options, runtime)
    request = CompletionRequest([Message("user", "Say hi.")], max_tokens=4)
    try:
        await adapter.complete(request)
        pid = runtime.servers["smollm2"].record.pid
        old_client = adapter._adapters["smollm2"].client()
        old_watchdog = runtime.servers["smollm2"].watchdog
        os.kill(pid, signal.SIGKILL)  # no waiting: the request may meet the dying server
        completion = await adapter.complete(request)
        assert completion.usage.completion_tokens > 0
        assert old_client.is_closed, "the client of the dead server's port is closed"
        assert old_watchdog is not None and old_watchdog.returncode is not None
        assert runtime.restarts["smollm2"] == 1
        new_pid = runtime.servers["smollm2"].record.pid
        assert new_pid != pid and pid_alive(new_pid)
        assert "exited" not in Path(runtime.log_file("smollm2")).read_text()[-200:]
    finally:
        await adapter.aclose()
        await runtime.astop_owned()


async def test_repeated_crashes_give_up_with_the_log(
    llama_runtime: LlamaRuntime, tmp_path: Path
) -> None:
    runtime = own_runtime(llama_runtime, tmp_path, restart_backoff=0.01, max_restarts=1)
    try:
        await runtime.ensure("smollm2")
        await kill(runtime)
        await runtime.ensure("smollm2")
        assert runtime.restarts["smollm2"] == 1
        await kill(runtime)
        with pytest.raises(ServerStartError, match="crashed 2 times in a row") as caught:
            await runtime.ensure("smollm2")
        # the error ends with the end of the server's log
        lines = runtime.log_file("smollm2").read_text().strip().splitlines()
        assert lines and lines[-1].strip() in str(caught.value)
        assert "(the last was killed by SIGKILL (killed from outside" in str(caught.value)
        assert "llama_server" in str(caught.value) or "srv" in str(caught.value)
    finally:
        await runtime.astop_owned()


async def test_the_memory_reserve_refuses_a_start(
    llama_runtime: LlamaRuntime, tmp_path: Path
) -> None:
    runtime = own_runtime(llama_runtime, tmp_path, os_reserve_mb=10**8)
    with pytest.raises(ReserveError) as caught:
        await runtime.ensure("smollm2")
    message = str(caught.value)
    assert "os_reserve_mb keeps 100000000 MiB" in message and "MiB are available" in message
    assert "needs about 1" in message  # ~94 MiB of weights, plus a margin
    assert not runtime.servers and not runtime.log_file("smollm2").exists()


async def test_a_model_the_server_cannot_load_is_rejected_with_its_log(
    llama_runtime: LlamaRuntime, tmp_path: Path
) -> None:
    """Valid GGUF magic, truncated tensors: llama-server itself refuses it."""
    broken = tmp_path / "truncated.gguf"
    with open(model_path(llama_runtime), "rb") as source:
        broken.write_bytes(source.read(3_000_000))
    options = options_for_tests(models={"broken": ModelOptions(path=str(broken))})
    runtime = LlamaRuntime(options, models_dir=tmp_path / "m", state_dir=tmp_path / "s")
    with pytest.raises(ServerStartError, match=r"exited \(code \d+\) while starting") as caught:
        await runtime.ensure("broken")
    message = str(caught.value)
    assert "failed to load model" in message and "truncated.gguf" in message
    assert "not within the file bounds" in message  # llama-server's own words, from its log
    assert not runtime.servers


async def test_an_ensemble_serves_each_model_by_name(
    llama_runtime: LlamaRuntime, tmp_path: Path
) -> None:
    path = model_path(llama_runtime)
    options = options_for_tests(
        models={
            "small": ModelOptions(path=path, ctx_size=1024),
            "other": ModelOptions(path=path, ctx_size=2048),
        },
        default_model="other",
    )
    runtime = LlamaRuntime(options, models_dir=tmp_path / "m", state_dir=tmp_path / "s")
    adapter = LlamaCppAdapter(options)
    adapter.runtime = runtime
    try:
        hello = [Message("user", "Hello!")]
        first = await adapter.complete(CompletionRequest(hello, model="small", max_tokens=4))
        second = await adapter.complete(CompletionRequest(hello, max_tokens=4))
        assert (first.model, second.model) == ("small", "other")
        servers = runtime.servers
        assert servers["small"].record.port != servers["other"].record.port
        assert adapter.capabilities.context_window == 2048
    finally:
        await adapter.aclose()
    assert not runtime.servers, "aclose of the adapter that made the runtime stops its servers"


async def test_detached_servers_are_adopted_and_stopped_by_others(
    llama_runtime: LlamaRuntime, tmp_path: Path
) -> None:
    starter = own_runtime(llama_runtime, tmp_path)
    server = await starter.start("smollm2", detached=True)
    starter.stop_owned()  # what an exiting `agentframe llama start` does: nothing to stop
    assert pid_alive(server.record.pid)
    other = own_runtime(llama_runtime, tmp_path)
    assert await other.ensure("smollm2") == server.base_url
    (row,) = other.status()
    assert row["running"] and row["owner"] == "detached" and row["pid"] == server.record.pid
    assert other.stop("smollm2") is True
    await eventually_async(lambda: not pid_alive(server.record.pid), what="the server to die")
    assert not other.state_file("smollm2").exists()


SCRIPT = """
import asyncio, sys
from pathlib import Path
from agentframe_llamacpp import LlamaRuntime, ModelOptions
from agentframe_llamacpp.testing import options_for_tests
options = options_for_tests(models={"smollm2": ModelOptions(path=sys.argv[1], ctx_size=1024)})
runtime = LlamaRuntime(options, models_dir=Path(sys.argv[2]), state_dir=Path(sys.argv[2]))
if sys.argv[3] == "thread":  # started from a worker thread that then ends
    import threading
    worker = threading.Thread(target=asyncio.run, args=(runtime.ensure("smollm2"),))
    worker.start()
    worker.join()
else:
    asyncio.run(runtime.ensure("smollm2"))
print(runtime.servers["smollm2"].record.pid, flush=True)
if sys.argv[3] != "exit":
    import time; time.sleep(600)
"""


@pytest.mark.parametrize("how", ["exit", "sigkill", "thread"])
def test_no_orphan_when_agentframe_exits(
    llama_runtime: LlamaRuntime, tmp_path: Path, how: str
) -> None:
    """A normal exit stops the server; so does a SIGKILLed parent (the watchdog), also when
    the server was started from a thread that has ended, which must not stop it."""
    script = tmp_path / "start.py"
    script.write_text(textwrap.dedent(SCRIPT))
    args = [
        sys.executable,
        str(script),
        model_path(llama_runtime),
        str(tmp_path),
        how,
    ]
    parent = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        pid = int(parent.stdout.readline())
        assert pid_alive(pid)
        if how == "thread":
            time.sleep(1.0)  # a parent-death signal would have stopped it by now
            assert pid_alive(pid), "the server died with the thread that started it"
    finally:
        if how != "exit":
            parent.kill()
    assert parent.wait(30) is not None
    eventually(lambda: not pid_alive(pid), what=f"llama-server {pid} to stop")
    assert not pid_alive(pid), f"llama-server {pid} outlived agentframe ({how})"
