"""Hostile documents and replies through `kg build` (issue 23, item 14): two documents whose
names differ only in `/` keep their own text; a reply that fails its step's schema is a named,
recorded failure of that step, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from agentframe_core.testing import run_cli

DATA = Path(__file__).parent / "data"
RECORDED = yaml.safe_load((DATA / "replies.yaml").read_text())


def _config(path: Path, replies: list[Any]) -> Path:
    path.write_text(yaml.safe_dump({"adapter": {"use": "scripted", "replies": replies}}))
    return path


def test_documents_whose_names_differ_only_in_a_slash_keep_their_own_text(
    tmp_path: Path,
) -> None:
    docs = tmp_path / "docs"
    (docs / "a").mkdir(parents=True)
    (docs / "a" / "b.md").write_text("Alpha was born in Athens.")
    (docs / "a__b.md").write_text("Beta was born in Berlin.")
    out = tmp_path / "out"
    built = run_cli(
        tmp_path, "kg", "build", str(docs), "--out", str(out), "--steps", "preprocess,ingest"
    )
    assert built.returncode == 0, built.stderr
    chunks = [json.loads(line) for line in (out / "chunks.jsonl").read_text().splitlines()]
    assert {c["doc"]: c["text"] for c in chunks} == {
        "a/b.md": "Alpha was born in Athens.",
        "a__b.md": "Beta was born in Berlin.",
    }


ADA = json.dumps(
    {
        "entities": [
            {"name": "Ada Lovelace", "type": "Person"},
            {"name": "Ada", "type": "Person"},
            {"name": "Turin", "type": "Place"},
        ],
        "relations": [{"subject": "Ada", "predicate": "bornIn", "object": "Turin"}],
    }
)
NOT_SAME = '{"answers": [{"pair": 0, "same": false}]}'
#: What each step is asked before the hostile one, at concurrency 1 (one chunk).
BEFORE = {
    "pass1": RECORDED["pass1"][:1],
    "pass2": RECORDED["pass1"],
    "normalize_names": [*RECORDED["pass1"], ADA],
    "orphan_connect": [*RECORDED["pass1"], ADA, NOT_SAME],
}
HOSTILE = [
    ("pass1", '{"subclasses": [], "properties": ["worksFor"]}', "properties[0]: 'worksFor' is not"),
    ("pass2", '{"entities": ["Ada"], "relations": []}', "entities[0]: 'Ada' is not of type"),
    (
        "pass2",
        '{"entities": [{"name": "Ada", "type": ["Person"]}], "relations": []}',
        "entities[0].type: ['Person'] is not one of",
    ),
    ("pass2", "[" * 100_000, "the reply nests too deeply"),
    ("normalize_names", '{"answers": 5}', "answers: 5 is not of type 'array'"),
    (
        "normalize_names",
        '{"answers": [{"pair": [0], "same": true}]}',
        "answers[0].pair: [0] is not of type 'integer'",
    ),
    ("orphan_connect", '{"relations": 7, "gaps": []}', "relations: 7 is not of type 'array'"),
    (
        "orphan_connect",
        '{"relations": [{"subject": ["Ada"], "predicate": "bornIn", "object": "Turin"}],'
        ' "gaps": []}',
        "relations[0].subject: ['Ada'] is not of type 'string'",
    ),
]


@pytest.mark.parametrize(
    ("step", "reply", "named"), HOSTILE, ids=[f"{s}-{i}" for i, (s, *_) in enumerate(HOSTILE)]
)
def test_a_reply_that_fails_its_schema_is_a_named_failure_of_its_step(
    tmp_path: Path, step: str, reply: str, named: str
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "ada.txt").write_text("Ada Lovelace was born in Turin. Ada wrote programs.")
    config = _config(tmp_path / "kg.yaml", [*BEFORE[step], *[reply] * 8])
    out = tmp_path / "out"
    built = run_cli(
        tmp_path, "-c", str(config), "kg", "build", str(docs), "--out", str(out),
        "--concurrency", "1",
    )  # fmt: skip
    enrichment = step == "orphan_connect"  # the graph can do without it (issue 28)
    assert built.returncode == (0 if enrichment else 1), built.stderr
    assert "Traceback" not in built.stderr, built.stderr
    assert f"[{step}] failed" in built.stderr
    assert named in built.stderr, built.stderr
    status = json.loads(run_cli(tmp_path, "kg", "status", str(out), "--json").stdout)
    assert status["steps"][step].startswith("failed: ")
    if enrichment:  # recorded, and the build went on to validate and export without it
        assert "going_on=without it" in built.stderr, built.stderr
        assert (out / "knowledge_graph.ttl").is_file() and (out / "export/graph.ttl").is_file()
        assert json.loads((out / "orphan_links.json").read_text())["relations"] == []
