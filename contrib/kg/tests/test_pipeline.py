"""End to end with the scripted model (replies recorded per step in data/replies.yaml) on the
three sample documents."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from agentframe_kg.context import Options, RunContext
from agentframe_kg.pipeline import run_pipeline, step_names
from agentframe_kg.progress import Progress
from agentframe_kg.tbox import SCHEMA
from pyshacl import validate
from rdflib import RDFS, Graph


async def _build(docs: Path, out: Path, adapter: Any, **options: object) -> str:
    opts = Options(docs=docs, concurrency=1, **options)  # type: ignore[arg-type]
    ctx = RunContext.for_adapter(out, opts, Progress(as_json=True), adapter)
    return await run_pipeline(ctx, step_names(), set())


def labelled_triples(graph: Graph) -> set[tuple[str, str, str]]:
    found = set()
    for s, p, o in graph:
        if str(p).startswith(str(SCHEMA)):
            found.add(
                (
                    str(graph.value(s, RDFS.label)).casefold(),
                    str(p)[len(str(SCHEMA)) :],
                    str(graph.value(o, RDFS.label)).casefold(),
                )
            )
    return found


async def test_the_scripted_build_makes_a_valid_graph_with_the_gold_triples(
    docs: Path, tmp_path: Path, scripted: Any, gold: set[tuple[str, str, str]]
) -> None:
    adapter = scripted()
    assert await _build(docs, tmp_path, adapter) == "done"
    # pass1's first reply failed the structural check and was answered with the errors
    assert adapter.calls == {"pass1": 3, "pass2": 3, "normalize_names": 1, "orphan_connect": 1}
    feedback = adapter.scripts["pass1"].requests[2].messages[-1].content
    assert "class Agent is its own ancestor (subClassOf cycle)" in feedback
    assert adapter.scripts["pass1"].requests[2].response_schema["properties"]["properties"][
        "items"
    ]["properties"]["domain"] == {"enum": ["Agent", "Person", "Organization", "Place"]}
    assert all(
        r.metadata == {"context_label": step}
        for step, a in adapter.scripts.items()
        for r in a.requests
    )

    graph = Graph().parse(tmp_path / "knowledge_graph.ttl", format="turtle")
    shapes = Graph().parse(tmp_path / "shapes.ttl", format="turtle")
    schema = Graph().parse(tmp_path / "schema.ttl", format="turtle")
    conforms, _, report = validate(graph, shacl_graph=shapes, ont_graph=schema)
    assert conforms, report
    assert labelled_triples(graph) == gold
    # the invalid relation (a Place working for a Place) was rejected, with its reason
    rejected = json.loads((tmp_path / "assemble_report.json").read_text())["rejected"]
    assert len(rejected) == 1 and rejected[0].startswith("Bern worksFor Ulm")
    for name in ("graph.ttl", "graph.jsonld", "graph.nt", "nodes.jsonl", "edges.jsonl"):
        assert (tmp_path / "export" / name).stat().st_size > 0
    edges = [
        json.loads(line) for line in (tmp_path / "export/edges.jsonl").read_text().splitlines()
    ]
    assert len(edges) == len(gold)
    Graph().parse(tmp_path / "export/graph.jsonld", format="json-ld")
    links = json.loads((tmp_path / "orphan_links.json").read_text())
    assert links["gaps"][0]["entity"] == "Isaac Newton"


async def test_a_second_run_makes_no_model_call_and_is_fast(
    docs: Path, tmp_path: Path, scripted: Any
) -> None:
    await _build(docs, tmp_path, scripted())
    again = scripted({})
    started = time.monotonic()
    assert await _build(docs, tmp_path, again) == "done"
    assert time.monotonic() - started < 2.0
    assert again.calls == {}


async def test_provenance_is_reified_with_the_source_chunk(
    docs: Path, tmp_path: Path, scripted: Any
) -> None:
    await _build(docs, tmp_path, scripted())
    graph = Graph().parse(tmp_path / "knowledge_graph.ttl", format="turtle")
    rows = list(
        graph.query("""
        PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
        PREFIX prov: <http://www.w3.org/ns/prov#>
        SELECT ?chunk WHERE { ?st rdf:subject ?s ; rdf:predicate ?p ; prov:wasDerivedFrom ?chunk .
                              ?s rdfs:label "Pierre Curie" }""")
    )
    assert len(rows) == 1 and "/chunk/paris-0-" in str(rows[0][0])
