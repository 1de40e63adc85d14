"""Stopping a server from async code: the event loop runs on, and a failed start stops once.

A stand-in `llama-server` (a shell script) never becomes healthy and, on SIGTERM, exits only
once the event loop has answered it: a loop blocked in the stop would leave it to SIGKILL.
"""

from __future__ import annotations

import asyncio
import shlex
from pathlib import Path

import pytest
from agentframe_llamacpp import LlamaRuntime, ModelOptions, ServerStartError
from agentframe_llamacpp.server import Server, spawn
from agentframe_llamacpp.testing import options_for_tests

FAKE_SERVER = """\
#!/bin/sh
cd {folder}
trap 'echo term >> term; until [ -e release ]; do sleep 0.02; done; touch clean-exit; exit 0' TERM
touch ready
sleep 120 &
wait $!
"""


def fake_runtime(tmp_path: Path) -> LlamaRuntime:
    binary = tmp_path / "llama-server"
    binary.write_text(FAKE_SERVER.format(folder=shlex.quote(str(tmp_path))))
    binary.chmod(0o755)
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF" + b"\0" * 64)
    options = options_for_tests(
        binary_path=str(binary), models={"m": ModelOptions(path=str(model))}, start_timeout=1.0
    )
    return LlamaRuntime(options, models_dir=tmp_path / "models", state_dir=tmp_path / "state")


async def release_on_term(folder: Path) -> None:
    """What only a running event loop does: let the stand-in exit after its SIGTERM."""
    while not (folder / "term").exists():
        await asyncio.sleep(0.02)
    (folder / "release").touch()


async def test_a_health_timeout_stops_the_server_once_without_blocking_the_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stops: list[int] = []
    real_stop = Server.stop

    def counted_stop(self: Server, timeout: float = 10.0) -> None:
        stops.append(self.record.pid)
        real_stop(self, timeout)

    monkeypatch.setattr(Server, "stop", counted_stop)
    runtime = fake_runtime(tmp_path)
    releaser = asyncio.create_task(release_on_term(tmp_path))
    with pytest.raises(ServerStartError, match="did not become healthy within 1s"):
        await runtime.ensure("m")
    await asyncio.wait_for(releaser, 1)
    assert (tmp_path / "clean-exit").exists(), "the server was SIGKILLed: the loop was blocked"
    assert len(stops) == 1 and (tmp_path / "term").read_text() == "term\n"
    assert not runtime.servers


async def test_astop_owned_lets_the_loop_run_while_servers_exit(tmp_path: Path) -> None:
    runtime = fake_runtime(tmp_path)
    model = runtime.store.get("m", runtime.options.models["m"])
    server = spawn(
        "m",
        [runtime.options.binary_path or ""],
        host="127.0.0.1",
        port=1,
        model=model.path,
        log=runtime.log_file("m"),
        keep_alive=0,
        options=runtime.options_key("m"),
    )
    runtime.servers["m"] = server
    while not (tmp_path / "ready").exists():
        await asyncio.sleep(0.01)
    releaser = asyncio.create_task(release_on_term(tmp_path))
    await runtime.astop_owned()
    await asyncio.wait_for(releaser, 1)
    assert (tmp_path / "clean-exit").exists() and not server.alive()
    assert server.watchdog is not None and server.watchdog.returncode is not None
    assert not runtime.servers
