"""`agentframe serve` against an in-process `Session.run` of the same scripted stack.

- added latency per request: p50/p99 of one Chat Completion (a new session, one model
  call, the answer) through a real `agentframe serve` process and httpx with keep-alive,
  against `Session.run` of the same stack (scripted adapter, SQLite or memory store) in
  this process, and of `GET /healthz` (the bare HTTP round trip to that process, which a
  loaded machine makes slow), and of the same app in this process through httpx's ASGI
  transport (no socket: the server's own cost); interleaved so all see the same machine
  noise. Goal: <= 1 ms added at p50.
- 64 concurrent streaming clients, each streaming requests back to back: throughput,
  p50/p99 of a whole stream, errors (goal: 0).
- memory per open stream: the server's RSS with 64 streams held open (the model takes 2 s
  to answer) less its RSS idle, over 64.

    python bench/serve.py [--requests 300] [--clients 64] [--per-client 10] [--store memory]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import yaml
from agentframe_serve import Keys, ServeSettings, build_app

from agentframe_core import PluginHost, Session, build_stack, find_agents, load_config

QUESTION = {"model": "helper", "messages": [{"role": "user", "content": "What is 6*7?"}]}
AGENT = "---\nname: helper\ndescription: Helps.\n---\nYou answer briefly.\n"


def project(root: Path, delay: float, store: str) -> Path:
    (root / ".agentframe" / "agents").mkdir(parents=True)
    (root / ".agentframe" / "agents" / "helper.md").write_text(AGENT)
    reply = {"content": "The answer is 42, as it always was.", "delay": delay}
    config = {
        "adapter": {"use": "scripted", "cycle": True, "replies": [reply]},
        "store": {"use": "sqlite", "path": str(root / "sessions.db")}
        if store == "sqlite"
        else {"use": "memory"},
        "serve": {"max_concurrent_per_key": 256},
    }
    (root / "agentframe.yaml").write_text(yaml.safe_dump(config))
    return root


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def start_server(root: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "AGENTFRAME_CONFIG"}
    env |= {"AGENTFRAME_CACHE_DIR": str(root / "cache"), "XDG_DATA_HOME": str(root / "data")}
    process = subprocess.Popen(
        [sys.executable, "-m", "agentframe_core", "serve", "--port", str(port)],
        cwd=root,
        env=env,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return process, url
        except httpx.HTTPError:
            time.sleep(0.1)
    raise SystemExit("agentframe serve did not start")


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise SystemExit("no VmRSS")


def ms(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


async def latency(url: str, root: Path, requests: int) -> tuple[list[float], ...]:
    plugins = PluginHost()
    config = load_config(plugins, root / "agentframe.yaml")
    stack = build_stack(config, plugins)
    agent = find_agents(plugins, config, root).get("helper")
    app = build_app(
        stack, [agent], root, ServeSettings(), Keys(), loopback=True, base_url="http://127.0.0.1"
    )
    times: tuple[list[float], ...] = ([], [], [], [])
    async with (
        httpx.AsyncClient(base_url=url, timeout=30) as http,
        httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://127.0.0.1") as asgi,
    ):
        for i in range(requests + 20):  # the first 20 of each warm up
            for which in (i % 4, (i + 1) % 4, (i + 2) % 4, (i + 3) % 4):  # each first in turn
                started = time.perf_counter()
                if which == 0:
                    response = await http.post("/v1/chat/completions", json=QUESTION)
                    assert response.status_code == 200, response.text
                elif which == 1:
                    await Session(stack, agent=agent, cwd=root).run("What is 6*7?")
                elif which == 2:
                    assert (await http.get("/healthz")).status_code == 200
                else:
                    response = await asgi.post("/v1/chat/completions", json=QUESTION)
                    assert response.status_code == 200, response.text
                if i >= 20:
                    times[which].append(time.perf_counter() - started)
    await stack.aclose()
    return times


async def stream_once(http: httpx.AsyncClient) -> bool:
    async with http.stream(
        "POST", "/v1/chat/completions", json={**QUESTION, "stream": True}
    ) as response:
        if response.status_code != 200:
            return False
        last = ""
        async for line in response.aiter_lines():
            last = line or last
        return last == "data: [DONE]"


async def concurrent(url: str, clients: int, per_client: int) -> tuple[list[float], int, float]:
    took: list[float] = []
    errors = 0

    async def client() -> None:
        nonlocal errors
        async with httpx.AsyncClient(base_url=url, timeout=60) as http:
            for _ in range(per_client):
                started = time.perf_counter()
                try:
                    ok = await stream_once(http)
                except httpx.HTTPError:
                    ok = False
                took.append(time.perf_counter() - started)
                errors += not ok

    started = time.perf_counter()
    await asyncio.gather(*(client() for _ in range(clients)))
    return took, errors, time.perf_counter() - started


async def open_streams(url: str, pid: int, clients: int) -> tuple[int, int, int]:
    """RSS idle, RSS with `clients` streams open (mid-answer), and the errors."""
    idle = rss_kib(pid)
    peak = idle
    results: list[bool] = []

    async def client() -> None:
        async with httpx.AsyncClient(base_url=url, timeout=60) as http:
            results.append(await stream_once(http))

    tasks = [asyncio.create_task(client()) for _ in range(clients)]
    for _ in range(15):  # the model answers after 2 s: sample while every stream is open
        await asyncio.sleep(0.1)
        peak = max(peak, rss_kib(pid))
    await asyncio.gather(*tasks)
    return idle, peak, results.count(False)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--per-client", type=int, default=10)
    parser.add_argument("--store", choices=["sqlite", "memory"], default="sqlite")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as fast_dir, tempfile.TemporaryDirectory() as slow_dir:
        fast = project(Path(fast_dir), 0.0, args.store)
        process, url = start_server(fast)
        try:
            served, local, floor, inside = await latency(url, fast, args.requests)
            took, errors, wall = await concurrent(url, args.clients, args.per_client)
        finally:
            process.terminate()
            process.wait(30)
        slow = project(Path(slow_dir), 2.0, args.store)
        process, url = start_server(slow)
        try:
            idle, peak, open_errors = await open_streams(url, process.pid, args.clients)
        finally:
            process.terminate()
            process.wait(30)
    added = statistics.median(served) - statistics.median(local)
    print(f"store: {args.store}; one request, {args.requests} each (ms)      p50     p99")
    print(f"  Session.run in-process           {ms(local, 0.5):6.2f}  {ms(local, 0.99):6.2f}")
    print(f"  POST /v1/chat/completions        {ms(served, 0.5):6.2f}  {ms(served, 0.99):6.2f}")
    print(f"  GET /healthz (the HTTP floor)    {ms(floor, 0.5):6.2f}  {ms(floor, 0.99):6.2f}")
    print(f"  added at p50                     {added * 1000:6.2f}")
    beyond = added - statistics.median(floor)
    print(f"  added at p50, beyond the floor   {beyond * 1000:6.2f}")
    print(f"  the app in-process (ASGI)        {ms(inside, 0.5):6.2f}  {ms(inside, 0.99):6.2f}")
    mine = statistics.median(inside) - statistics.median(local)
    print(f"  added by the app at p50          {mine * 1000:6.2f}")
    total = args.clients * args.per_client
    print(
        f"{args.clients} streaming clients x {args.per_client}: {total / wall:.0f} streams/s, "
        f"p50 {ms(took, 0.5):.1f} ms, p99 {ms(took, 0.99):.1f} ms, errors {errors}"
    )
    print(
        f"{args.clients} streams open: RSS {idle / 1024:.1f} -> {peak / 1024:.1f} MiB, "
        f"{(peak - idle) / args.clients:.0f} KiB per stream, errors {open_errors}"
    )


if __name__ == "__main__":
    asyncio.run(main())
