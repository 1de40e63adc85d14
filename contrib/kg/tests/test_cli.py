"""The CLI as real subprocesses with `use: scripted`: a whole build, status, query, show; a
build killed with SIGKILL during pass2 resumes without asking done chunks again."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml
from agentframe_kg.context import Options, RunContext
from agentframe_kg.pipeline import run_pipeline, step_names
from agentframe_kg.progress import Progress

from agentframe_core.testing import eventually, run_cli

DATA = Path(__file__).parent / "data"
STEP_ORDER = ("pass1", "pass2", "normalize_names", "orphan_connect")


def _config(path: Path, replies: list[Any], *, cycle: bool = False) -> Path:
    path.write_text(
        yaml.safe_dump({"adapter": {"use": "scripted", "replies": replies, "cycle": cycle}})
    )
    return path


def _calls(out: Path, step: str) -> int:
    log = out / "calls.jsonl"
    lines = log.read_text().splitlines() if log.exists() else []
    return sum(json.loads(line)["step"] == step for line in lines)


def test_build_status_query_and_show_as_subprocesses(tmp_path: Path) -> None:
    recorded = yaml.safe_load((DATA / "replies.yaml").read_text())
    # at concurrency 1 the steps ask in this order, so one scripted list plays them all
    config = _config(tmp_path / "kg.yaml", [r for step in STEP_ORDER for r in recorded[step]])
    out = tmp_path / "out"
    args = ("-c", str(config), "kg", "build", str(DATA / "docs"), "--out", str(out))
    built = run_cli(tmp_path, *args, "--concurrency", "1", "--json")
    assert built.returncode == 0, built.stderr
    events = [json.loads(line) for line in built.stdout.splitlines()]
    assert [e["step"] for e in events if e["status"] == "done"] == step_names()
    progress = [e for e in events if e["status"] == "progress" and e["step"] == "pass2"]
    assert (progress[-1]["done"], progress[-1]["total"]) == (3, 3) and "eta_s" in progress[-1]
    again = run_cli(tmp_path, *args, "--concurrency", "1")
    assert again.returncode == 0, again.stderr
    assert again.stderr.count("skipped reason=up to date") == len(step_names())
    assert sum(_calls(out, s) for s in STEP_ORDER) == 8  # the first build's calls only

    status = run_cli(tmp_path, "kg", "status", str(out), "--json")
    report = json.loads(status.stdout)
    assert set(report["steps"].values()) == {"done"} and report["pass2"] == {"done": 3, "total": 3}
    rows = run_cli(
        tmp_path,
        "kg",
        "query",
        str(out),
        "SELECT ?o WHERE { ?s rdfs:label 'Pierre Curie' ; kgs:worksFor ?x . ?x rdfs:label ?o }",
    )
    assert rows.stdout.strip() == "University of Paris"
    shown = run_cli(tmp_path, "kg", "show", str(out), "marie curie", "--json")
    relations = json.loads(shown.stdout)["relations"]
    assert {(r["predicate"], r["other"]) for r in relations} == {
        ("bornIn", "Warsaw"),
        ("worksFor", "University of Paris"),
    }
    assert all(r["sources"] and r["sources"][0].startswith("curie-0-") for r in relations)


def test_wrong_input_is_a_message_not_a_traceback(tmp_path: Path) -> None:
    for args in (
        ("kg", "query", str(tmp_path), "SELECT ?x"),
        ("kg", "build", str(tmp_path / "nowhere"), "--out", str(tmp_path / "o")),
        ("kg", "build", str(DATA / "docs"), "--out", str(tmp_path), "--steps", "pass9"),
        ("kg", "show", str(DATA / "docs" / "curie.md"), "x"),
        ("kg", "approve", str(tmp_path)),
    ):
        result = run_cli(tmp_path, *args)
        assert result.returncode != 0 and "Traceback" not in result.stderr, args
        assert result.stderr.strip()


def _pass2_reply() -> str:
    return json.dumps(
        {
            "entities": [{"name": "Ada", "type": "Person"}, {"name": "Turin", "type": "Place"}],
            "relations": [{"subject": "Ada", "predicate": "bornIn", "object": "Turin"}],
        }
    )


async def _schema_ready(docs: Path, out: Path, scripted: Any) -> None:
    """Steps 1-6 in process, so that the subprocess starts at pass2."""
    ctx = RunContext.for_adapter(out, Options(docs=docs), Progress(as_json=True), scripted())
    await run_pipeline(ctx, step_names()[:6], set())


async def test_a_build_killed_during_pass2_resumes_with_the_undone_chunks(
    tmp_path: Path, scripted: Any
) -> None:
    docs, out, total = tmp_path / "docs", tmp_path / "out", 12
    docs.mkdir()
    for i in range(total):
        (docs / f"note{i:02}.txt").write_text(f"Note {i}: Ada was born in Turin, story number {i}.")
    await _schema_ready(docs, out, scripted)
    slow = _config(tmp_path / "slow.yaml", [{"content": _pass2_reply(), "delay": 0.4}], cycle=True)
    env = {**os.environ, "AGENTFRAME_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("AGENTFRAME_CONFIG", None)
    command = [
        sys.executable,
        "-m",
        "agentframe_core",
        "-c",
        str(slow),
        "kg",
        "build",
        str(docs),
        "--out",
        str(out),
        "--concurrency",
        "2",
        "--json",
    ]
    process = subprocess.Popen(
        command, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    eventually(lambda: len(list((out / "pass2").glob("*.json"))) >= 4, 60, what="four pass-2 files")
    process.send_signal(signal.SIGKILL)
    process.wait()
    done_before = len(list((out / "pass2").glob("*.json")))
    assert 4 <= done_before < total
    asked_before = _calls(out, "pass2")

    fast = _config(tmp_path / "fast.yaml", [_pass2_reply()], cycle=True)
    resumed = run_cli(
        tmp_path, "-c", str(fast), "kg", "build", str(docs), "--out", str(out), "--steps", "pass2"
    )
    assert resumed.returncode == 0, resumed.stderr
    assert _calls(out, "pass2") - asked_before == total - done_before
    assert len((out / "abox.jsonl").read_text().splitlines()) == total
