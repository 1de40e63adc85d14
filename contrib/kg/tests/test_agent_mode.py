"""The same scripted build through agent mode (`use: agentfs`): every model call becomes a
task file labelled with its step, answered by a drainer playing the recorded replies."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from agentframe_kg.context import Options, RunContext
from agentframe_kg.pipeline import run_pipeline, step_names
from agentframe_kg.progress import Progress
from agentframe_kg.tbox import SCHEMA
from rdflib import RDFS, Graph

agentfs = pytest.importorskip("agentframe_agentfs")


async def test_the_build_runs_through_agent_mode_with_a_scripted_drainer(
    docs: Path, tmp_path: Path, scripted: Any, gold: set[tuple[str, str, str]]
) -> None:
    folder = tmp_path / "intermediate"
    adapter = agentfs.AgentFSAdapter(
        agentfs.AgentFSOptions(dir=folder, json_schema=True, timeout_seconds=60, poll_interval=0.05)
    )
    answers = scripted()
    drainer = agentfs.Drainer(
        agentfs.Folder(folder), answers, agentfs.DrainerSettings(workers=2, poll_interval=0.05)
    )
    stop = asyncio.Event()
    draining = asyncio.create_task(drainer.run(stop))
    try:
        ctx = RunContext.for_adapter(
            tmp_path / "out", Options(docs=docs, concurrency=1), Progress(as_json=True), adapter
        )
        assert await run_pipeline(ctx, step_names(), set()) == "done"
    finally:
        stop.set()
        await draining
    assert answers.calls == {"pass1": 3, "pass2": 3, "normalize_names": 1, "orphan_connect": 1}
    tasks = [json.loads(p.read_text()) for p in (folder / "agent_inbox").glob("*.task.json")]
    assert sorted({t["context_label"] for t in tasks}) == sorted(answers.calls)
    assert all(t["response_schema"] for t in tasks)
    graph = Graph().parse(tmp_path / "out" / "knowledge_graph.ttl", format="turtle")
    schema = str(SCHEMA)
    found = {
        (
            str(graph.value(s, RDFS.label)).casefold(),
            str(p)[len(schema) :],
            str(graph.value(o, RDFS.label)).casefold(),
        )
        for s, p, o in graph
        if str(p).startswith(schema)
    }
    assert found == gold
