import asyncio
import sys
import time

from agentframe_agentfs import AgentFSAdapter, AgentFSOptions

from agentframe_core import CompletionRequest, Message


async def main():
    a = AgentFSAdapter(AgentFSOptions(dir="work", timeout_seconds=5))
    ts = []
    for i in range(100):
        t = time.perf_counter()
        c = await a.complete(CompletionRequest([Message("user", f"hi {i} {sys.argv[1]}")]))
        ts.append((time.perf_counter() - t) * 1000)
    ts.sort()
    print(f"p50 {ts[50]:.2f} p90 {ts[90]:.2f} max {ts[-1]:.2f}")


asyncio.run(main())
