"""pass2 throughput of agentframe-kg: chunks extracted per minute at concurrency 1, 4 and 8,
with a scripted model that takes `--delay` seconds per call (a stand-in for a model server's
latency), as ratios to concurrency 1 measured in the same run.

    python bench/kg.py [--chunks 32] [--delay 0.1]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import tempfile
import time
from pathlib import Path

from agentframe_kg.context import Options, RunContext
from agentframe_kg.pipeline import run_pipeline, step_names
from agentframe_kg.progress import Progress

from agentframe_core.testing import ScriptedAdapter, ScriptedReply

CLASSES = json.dumps({"classes": ["Person", "Place"]})
RELATIONS = json.dumps(
    {"subclasses": [], "properties": [{"name": "bornIn", "domain": "Person", "range": "Place"}]}
)
ABOX = json.dumps(
    {
        "entities": [{"name": "Ada", "type": "Person"}, {"name": "Turin", "type": "Place"}],
        "relations": [{"subject": "Ada", "predicate": "bornIn", "object": "Turin"}],
    }
)


class _Quiet(Progress):
    def event(self, step: str, status: str, **fields: object) -> None:
        pass

    def advance(self, step: str, done: int, total: int) -> None:
        pass


async def _prepare(root: Path, chunks: int) -> Path:
    docs = root / "docs"
    docs.mkdir()
    for i in range(chunks):
        (docs / f"d{i:03}.txt").write_text(f"Document {i}: Ada was born in Turin.")
    ready = root / "ready"
    ctx = RunContext.for_adapter(
        ready, Options(docs=docs), _Quiet(), ScriptedAdapter([CLASSES, RELATIONS])
    )
    await run_pipeline(ctx, step_names()[:6], set())
    return docs


async def _pass2_seconds(root: Path, docs: Path, concurrency: int, delay: float) -> float:
    out = root / f"c{concurrency}"
    shutil.copytree(root / "ready", out)
    adapter = ScriptedAdapter([ScriptedReply(content=ABOX, delay=delay)], cycle=True)
    ctx = RunContext.for_adapter(
        out, Options(docs=docs, concurrency=concurrency), _Quiet(), adapter
    )
    started = time.perf_counter()
    await run_pipeline(ctx, ["pass2"], {"pass2"})
    return time.perf_counter() - started


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--chunks", type=int, default=32)
    parser.add_argument("--delay", type=float, default=0.1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        docs = await _prepare(root, args.chunks)
        rates = {}
        for concurrency in (1, 4, 8):
            seconds = await _pass2_seconds(root, docs, concurrency, args.delay)
            rates[concurrency] = args.chunks / seconds * 60
    print(f"pass2, {args.chunks} chunks, {args.delay:.2f} s per model call")
    for concurrency, rate in rates.items():
        print(f"  concurrency {concurrency}: {rate:8.1f} chunks/min  ({rate / rates[1]:.2f}x)")


if __name__ == "__main__":
    asyncio.run(main())
