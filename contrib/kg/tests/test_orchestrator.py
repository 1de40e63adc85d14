"""The orchestrator: only what depends on a changed input runs again; the review gate; a
timeout is retried once; validation feedback is bounded; hostile documents are refused."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from agentframe_kg.asking import Asker, ModelReplyError
from agentframe_kg.context import Options, RunContext, StepError
from agentframe_kg.pipeline import run_pipeline, step_names
from agentframe_kg.progress import Progress

from agentframe_core.testing import ScriptedAdapter, run_cli


def _ctx(docs: Path, out: Path, adapter: Any, **options: Any) -> RunContext:
    opts = Options(docs=docs, concurrency=1, **options)
    return RunContext.for_adapter(out, opts, Progress(as_json=True), adapter)


async def test_changing_one_document_asks_only_for_its_chunk(
    docs: Path, tmp_path: Path, scripted: Any
) -> None:
    copy = tmp_path / "docs"
    copy.mkdir()
    for doc in docs.iterdir():
        (copy / doc.name).write_bytes(doc.read_bytes())
    out = tmp_path / "out"
    # pass1 sees the first chunk of two documents only, so paris.txt is not in its sample
    await run_pipeline(_ctx(copy, out, scripted(), sample_chunks=2), step_names(), set())
    with open(copy / "paris.txt", "a") as handle:
        handle.write("Paris is a city.\n")
    paris_reply = scripted().scripts["pass2"].replies[2]
    again = scripted(
        {
            "pass2": [paris_reply],
            "normalize_names": [
                scripted().scripts["normalize_names"].replies[0],
            ],
            "orphan_connect": ['{"relations": [], "gaps": []}'],
        }
    )
    assert (
        await run_pipeline(_ctx(copy, out, again, sample_chunks=2), step_names(), set()) == "done"
    )
    assert again.calls["pass2"] == 1 and "pass1" not in again.calls
    assert len(again.scripts["pass2"].requests) == 1
    assert "Paris is a city." in again.scripts["pass2"].requests[0].messages[-1].content


async def test_review_stops_after_the_schema_until_approved(
    docs: Path, tmp_path: Path, scripted: Any
) -> None:
    adapter = scripted()
    out = tmp_path / "out"
    assert await run_pipeline(_ctx(docs, out, adapter, review=True), step_names(), set()) == (
        "awaiting_approval"
    )
    assert "worksFor: Person -> Organization" in (out / "schema_summary.md").read_text()
    assert "pass2" not in adapter.calls and not (out / "abox.jsonl").exists()
    approved = run_cli(tmp_path, "kg", "approve", str(out))
    assert approved.returncode == 0, approved.stderr
    assert await run_pipeline(_ctx(docs, out, adapter, review=True), step_names(), set()) == "done"
    assert adapter.calls["pass1"] == 3  # the schema was not asked again
    assert (out / "knowledge_graph.ttl").exists()


async def test_a_timeout_is_retried_once(tmp_path: Path) -> None:
    slow = {"content": "{}", "delay": 5}
    adapter = ScriptedAdapter([slow, '{"ok": true}'])
    asker = Asker(adapter, tmp_path / "calls.jsonl", timeout=0.2)
    assert await asker.ask_json("pass1", "s", "p", {}) == {"ok": True}
    twice = Asker(ScriptedAdapter([slow, slow]), tmp_path / "calls2.jsonl", timeout=0.2)
    with pytest.raises(TimeoutError):
        await twice.ask_json("pass1", "s", "p", {})
    assert len((tmp_path / "calls2.jsonl").read_text().splitlines()) == 2


async def test_validation_feedback_is_bounded(docs: Path, tmp_path: Path, scripted: Any) -> None:
    names, bad = scripted().scripts["pass1"].replies[:2]
    adapter = scripted({"pass1": [names, bad, bad, bad, bad]})
    with pytest.raises(ModelReplyError, match=r"own ancestor"):
        await run_pipeline(_ctx(docs, tmp_path, adapter, feedback_rounds=2), step_names(), set())
    assert adapter.calls == {"pass1": 4}  # the classes, then 1 + 2 feedback rounds


async def test_a_missing_input_is_a_precondition_failure(tmp_path: Path, scripted: Any) -> None:
    adapter = scripted()
    with pytest.raises(StepError, match=r"missing schema_flat\.txt"):
        await run_pipeline(_ctx(tmp_path, tmp_path / "out", adapter), ["pass2"], {"pass2"})
    assert adapter.calls == {}


async def test_hostile_documents_are_refused_and_named(tmp_path: Path, scripted: Any) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "ok.md").write_text("Ada was born in Turin.")
    (docs / "big.txt").write_bytes(b"x" * 5000)
    (docs / "link.txt").symlink_to("/etc/passwd")
    os.mkfifo(docs / "pipe.txt")
    (docs / "tool.exe").write_bytes(b"\0\1")
    (docs / "binary.txt").write_bytes(bytes(range(256)))
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.md").write_text("not to be read")
    (docs / "linkdir").symlink_to(tmp_path / "outside")
    out = tmp_path / "out"
    await run_pipeline(_ctx(docs, out, scripted(), max_doc_bytes=1000), ["preprocess"], set())
    report = json.loads((out / "docs.json").read_text())
    assert sorted(d["doc"] for d in report["docs"]) == ["binary.txt", "ok.md"]
    skipped = "\n".join(report["skipped"])
    for reason in (
        "link.txt: not a regular file",
        "linkdir: not a regular file",
        "pipe.txt: not a regular file",
        "tool.exe: unsupported type",
        "big.txt: 5000 bytes, over the cap",
    ):
        assert reason in skipped
