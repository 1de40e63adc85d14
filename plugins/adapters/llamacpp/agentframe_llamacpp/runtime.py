"""`LlamaRuntime`: the llama-server processes of one config, one per model (an ensemble).

A server starts on first use (or `agentframe llama start`), is reused across agentframe
processes through its state file (one per model and options), is restarted after a crash
with exponential backoff, and is kept warm for `keep_alive` seconds after its last user exits
(`warm.py`; 0: stopped on exit by the process that started it). Starting refuses to eat into
the memory or disk reserves; models are fetched and verified by the `ModelStore`.
"""

from __future__ import annotations

import asyncio
import atexit
import hashlib
import logging
import time
import weakref
from dataclasses import replace
from pathlib import Path
from typing import Any

from agentframe_core import cache_dir, pid_alive

from .binary import find_binary
from .crash import describe_exit
from .errors import RuntimeFailure, ServerStartError, UnknownModelError
from .models import ModelFile, ModelStore
from .options import LlamaCppOptions, ModelOptions
from .reserves import MIB, check_disk, check_memory
from .server import (
    Server,
    ServerRecord,
    adopt,
    free_port,
    log_tail,
    read_state,
    spawn,
    wait_healthy,
    write_state,
)
from .warm import held, hold, let_go, live_holders, locked, start_keeper

__all__ = ["LlamaRuntime"]

log = logging.getLogger("agentframe.llamacpp")

#: A server that ran this long before crashing starts a fresh count of crashes in a row.
STABLE_AFTER = 60.0
#: Disk a server needs besides its model: its log, and room to work.
LOG_DISK_MB = 64


class LlamaRuntime:
    def __init__(
        self,
        options: LlamaCppOptions,
        *,
        models_dir: Path | None = None,
        state_dir: Path | None = None,
    ) -> None:
        self.options = options
        self.store = ModelStore(models_dir or cache_dir() / "models", options.disk_reserve_mb)
        self.state_dir = state_dir or cache_dir() / "llama"
        self.servers: dict[str, Server] = {}
        #: Restarts after a crash, per model (for status and tests).
        self.restarts: dict[str, int] = {}
        self._crashes: dict[str, list[float]] = {}
        self._locks: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, dict[str, asyncio.Lock]
        ] = weakref.WeakKeyDictionary()
        atexit.register(self.stop_owned)

    # -- names -----------------------------------------------------------------------------

    def resolve(self, requested: str | None) -> str:
        """The model to use: the one asked for by name, else the default."""
        if requested is None or requested in ("", "inherit"):
            return self.options.default
        if requested not in self.options.models:
            raise UnknownModelError(
                f"model {requested!r} is not configured for llamacpp; configured: "
                f"{', '.join(self.options.models)} (add it under adapter.models)"
            )
        return requested

    def model(self, name: str) -> ModelOptions:
        return self.options.models[self.resolve(name)]

    def options_key(self, name: str) -> str:
        """A hash of what makes `name`'s server: a server is reused only by the same."""
        model, options = self.options.models[name], self.options
        text = f"{name}\0{model.model_dump_json()}\0{options.host}\0{options.binary_path}"
        return hashlib.sha256(text.encode()).hexdigest()[:12]

    def state_file(self, name: str) -> Path:
        return self.state_dir / f"{name}-{self.options_key(name)}.json"

    def lock_file(self, name: str) -> Path:
        return self.state_file(name).with_suffix(".lock")

    def log_file(self, name: str) -> Path:
        return self.state_dir / f"{name}.log"

    # -- running ---------------------------------------------------------------------------

    def alive(self, name: str) -> bool:
        server = self.servers.get(name)
        return server is not None and server.alive()

    async def gone(self, name: str, within: float = 2.0) -> bool:
        """After a connection failure: has the server died (allowing it `within` seconds to
        finish dying: a killed multi-threaded process is not reaped at once)?"""
        deadline = time.monotonic() + within
        while self.alive(name):
            if time.monotonic() > deadline:
                return False
            await asyncio.sleep(0.05)
        return True

    async def ensure(self, name: str) -> str:
        """The base URL of a healthy server for `name`, starting (or restarting) it first."""
        async with self._lock(name):
            server = self.servers.get(name)
            if server is not None and server.alive():
                return server.base_url
            if server is not None:
                del self.servers[name]
                if server.process is not None:  # this process started it
                    await server.astop()  # reaps it, and ends its watchdog
                    await self._after_crash(name, server)
            return (await self._start(name, detached=False)).base_url

    async def start(self, name: str, *, detached: bool = False) -> Server:
        """Start `name` now (or find it running). A detached server outlives this process."""
        async with self._lock(name):
            server = self.servers.get(name)
            if server is not None and server.alive():
                return server
            return await self._start(name, detached=detached)

    async def _start(self, name: str, *, detached: bool) -> Server:
        """Adopt the running server of `name` and these options, or start one: under the
        server's lock, so processes starting at once end with one server."""
        model = self.options.models[name]
        binary = find_binary(self.options.binary_path)
        found = await asyncio.to_thread(self.store.get, name, model)
        async with held(self.lock_file(name)):
            running = await adopt(self.state_file(name), found.path, self.options_key(name))
            if running is not None:
                state = self.state_file(name)
                if not detached:
                    running.record = hold(state, running.record)
                elif running.record.keep_alive:  # `llama start` on a warm one: off its timer
                    running.record = replace(running.record, keep_alive=None)
                    write_state(state, running.record)
                self.servers[name] = running
                return running
            return await self._spawn(name, found, binary, None if detached else self.keep_alive)

    @property
    def keep_alive(self) -> float:
        return self.options.keep_alive

    async def _spawn(
        self, name: str, found: ModelFile, binary: Path, keep_alive: float | None
    ) -> Server:
        model = self.options.models[name]
        check_memory(
            f"llama-server for model {name!r}", _memory_need_mb(found), self.options.os_reserve_mb
        )
        check_disk(
            f"starting llama-server for model {name!r}",
            self.state_dir,
            LOG_DISK_MB,
            self.options.disk_reserve_mb,
        )
        host = self.options.host
        port = model.port or free_port(host)
        command = [
            str(binary),
            "--model",
            str(found.path),
            "--host",
            host,
            "--port",
            str(port),
            "--alias",
            name,
            *model.flags(),
        ]
        server = spawn(
            name,
            command,
            host=host,
            port=port,
            model=found.path,
            log=self.log_file(name),
            keep_alive=keep_alive,
            options=self.options_key(name),
        )
        try:
            await wait_healthy(server, self.options.start_timeout)
        except BaseException:
            await server.astop()
            raise
        write_state(self.state_file(name), server.record)
        if keep_alive:
            with open(self.log_file(name), "ab") as log_file:
                start_keeper(
                    self.state_file(name), self.lock_file(name), server.record.pid, log_file
                )
        self.servers[name] = server
        log.info(
            "llama-server for %r is up at %s (pid %d)", name, server.base_url, server.record.pid
        )
        return server

    async def _after_crash(self, name: str, server: Server) -> None:
        """Count a crash in a row and wait the backoff, or give up after `max_restarts`."""
        now = time.monotonic()
        crashes = self._crashes.setdefault(name, [])
        if server.uptime > STABLE_AFTER:
            crashes.clear()
        crashes.append(now)
        code = server.process.returncode if server.process else None
        if len(crashes) > self.options.max_restarts:
            crashes.clear()
            raise ServerStartError(
                f"llama-server for model {name!r} crashed {self.options.max_restarts + 1} times "
                f"in a row (the last {describe_exit(code)}); not restarting it again. The end "
                f"of its log ({server.record.log}):\n" + log_tail(Path(server.record.log), 15)
            )
        delay = self.options.restart_delays().delay(len(crashes))
        log.warning("llama-server for %r %s; restarting in %.1fs", name, describe_exit(code), delay)
        self.restarts[name] = self.restarts.get(name, 0) + 1
        await asyncio.sleep(delay)

    def stop(self, name: str) -> bool:
        """Stop `name`'s server (this config's), whoever started it; True if one was running."""
        return stop_state(self.state_file(name), self.servers.pop(name, None))

    def stop_owned(self) -> None:
        """Stop every server this process started to stop on exit, and let go of the others
        (a warm one stops after `keep_alive`). Blocks: for atexit and sync callers; async code
        uses `astop_owned`."""
        owned, used = self._take()
        for name, server in owned:
            server.stop()
            self._forget(name, server)
        for name, server in used:
            self._let_go(name, server)

    async def astop_owned(self) -> None:
        """`stop_owned` without blocking the event loop (the servers stop side by side)."""
        owned, used = self._take()
        await asyncio.gather(
            *(server.astop() for _, server in owned),
            *(asyncio.to_thread(self._let_go, name, server) for name, server in used),
        )
        for name, server in owned:
            self._forget(name, server)

    def _take(self) -> tuple[list[tuple[str, Server]], list[tuple[str, Server]]]:
        """This process's servers, taken: those it stops, and those it only lets go of."""
        servers = list(self.servers.items())
        self.servers.clear()
        owned = [(name, server) for name, server in servers if server.owned]
        return owned, [(name, server) for name, server in servers if not server.owned]

    def _let_go(self, name: str, server: Server) -> None:
        """Leave the holders of a server kept warm (or started by another process); the last
        holder with `keep_alive: 0` stops it now."""
        with locked(self.lock_file(name)):
            ending = let_go(self.state_file(name), server.record.pid, self.keep_alive)
            if ending is not None:
                Server(ending, server.process).stop()
                self.state_file(name).unlink(missing_ok=True)

    def _forget(self, name: str, server: Server) -> None:
        """Remove the state file, unless it describes another server by now."""
        record = read_state(self.state_file(name))
        if record is not None and record.pid == server.record.pid:
            self.state_file(name).unlink(missing_ok=True)

    def _lock(self, name: str) -> asyncio.Lock:
        locks = self._locks.setdefault(asyncio.get_running_loop(), {})
        return locks.setdefault(name, asyncio.Lock())

    # -- reporting -------------------------------------------------------------------------

    def status(self) -> list[dict[str, Any]]:
        """One row per configured model: whether it runs, where, whose it is, and its files."""
        rows = []
        for name, model in self.options.models.items():
            server = self.servers.get(name)
            record = server.record if server else read_state(self.state_file(name))
            running = record is not None and (
                server.alive() if server else Server(record, None).alive()
            )
            try:
                found = self.store.locate(name, model)
            except RuntimeFailure:
                found = None
            rows.append(
                {
                    "model": name,
                    "default": name == self.options.default,
                    **_running(record if running else None),
                    "ours": True,
                    "origin": model.source or str(model.path),
                    "file": str(found.path) if found else None,
                    "size": found.path.stat().st_size if found else None,
                    "log": str(self.log_file(name)),
                    "restarts": self.restarts.get(name, 0),
                }
            )
        return rows

    def others(self) -> list[tuple[Path, ServerRecord]]:
        """The running servers of this cache that are not this config's (another config, or
        other options): their state files and records."""
        mine = {self.state_file(name) for name in self.options.models}
        found = []
        for path in sorted(self.state_dir.glob("*.json")):
            record = read_state(path)
            if path not in mine and record is not None and Server(record, None).alive():
                found.append((path, record))
        return found

    def pull(self, name: str, *, force: bool = False) -> ModelFile:
        name = self.resolve(name)
        found = self.store.pull(name, self.options.models[name], force=force)
        self.store.verify(name, found)
        return found


def stop_state(state: Path, server: Server | None = None) -> bool:
    """Stop the server a state file describes (`server`: this process's handle on it), under
    its lock, and remove the file; True if one was running."""
    with locked(state.with_suffix(".lock")):
        record = read_state(state)
        if record is not None and (server is None or server.record.pid != record.pid):
            server = Server(record, None)
        stopped = server is not None and server.alive()
        if server is not None and stopped:
            server.stop()
        state.unlink(missing_ok=True)
    return stopped


def whose(record: ServerRecord) -> str:
    """Who started a server and when it stops, in words (`llama status`, `doctor`)."""
    if record.keep_alive is None or record.owner is None:
        return "started by `agentframe llama start`; runs until `agentframe llama stop`"
    started = f"agentframe pid {record.owner}" + ("" if pid_alive(record.owner) else " (exited)")
    where = f" in {record.cwd}" if record.cwd else ""
    if record.keep_alive == 0:
        return f"{started}{where}; stops when that process exits"
    users = live_holders(record)
    if users:
        when = f"in use by {len(users)} process(es); stops {record.keep_alive:g}s after the last"
    else:
        stops = record.last_used + record.keep_alive
        when = f"idle; stops at {time.strftime('%H:%M:%S', time.localtime(stops))}"
    return f"{started}{where}; kept warm {record.keep_alive:g}s: {when}"


def _running(record: ServerRecord | None) -> dict[str, Any]:
    """The status fields of a running server (all None when it is not running)."""
    if record is None:
        return dict.fromkeys(("pid", "url", "owner", "whose", "keep_alive", "stops_at"), None) | {
            "running": False,
            "holders": [],
        }
    return {
        "running": True,
        "pid": record.pid,
        "url": record.base_url,
        "owner": record.owner or "detached",
        "whose": whose(record),
        "keep_alive": record.keep_alive,
        "holders": list(live_holders(record)),
        "stops_at": None if live_holders(record) else record.stops_at,
    }


def _memory_need_mb(found: ModelFile) -> int:
    """About what a server for this model takes: the weights, plus a tenth for the KV cache
    and compute buffers, plus a fixed overhead (an estimate: GGUF metadata is not read)."""
    size_mb = found.path.stat().st_size // MIB
    return size_mb + size_mb // 10 + 64
