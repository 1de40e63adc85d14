"""Entities through `kg build` (issue 23, items 11 and 13): distinct names keep distinct IRIs in
any script, entities of different types are never merged, pass2's bounds are enforced on
replies, and normalize_names' work is bounded however many names there are."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from agentframe_kg.steps_extract import MAX_COMPARISONS
from rdflib import RDF, RDFS, Graph

from agentframe_core.testing import run_cli

DATA = Path(__file__).parent / "data"
RECORDED = yaml.safe_load((DATA / "replies.yaml").read_text())
SCHEMA = "https://agentframe.dev/kg/schema#"


def _build(tmp_path: Path, replies: list[Any], *extra: str) -> tuple[Path, Any]:
    docs = tmp_path / "docs"
    docs.mkdir(exist_ok=True)
    (docs / "cities.txt").write_text("C was born in C#. Tokyo, Osaka, Moscow and Athens.")
    config = tmp_path / "kg.yaml"
    config.write_text(yaml.safe_dump({"adapter": {"use": "scripted", "replies": replies}}))
    out = tmp_path / "out"
    args = ("-c", str(config), "kg", "build", str(docs), "--out", str(out), "--concurrency", "1")
    return out, run_cli(tmp_path, *args, *extra)


def _reply(entities: list[tuple[str, str]], relations: list[tuple[str, str, str]]) -> str:
    return json.dumps(
        {
            "entities": [{"name": n, "type": t} for n, t in entities],
            "relations": [{"subject": s, "predicate": p, "object": o} for s, p, o in relations],
        },
        ensure_ascii=False,
    )


def test_distinct_names_stay_distinct_entities_of_one_type_each(tmp_path: Path) -> None:
    names = [("東京", "Place"), ("大阪", "Place"), ("Москва", "Place"), ("Αθήνα", "Place")]
    names += [("C", "Person"), ("C#", "Place"), ("C++", "Place"), ("Paris", "Person")]
    names += [("Paris", "Place")]
    pass2 = _reply(names, [("C", "bornIn", "C#"), ("Paris", "bornIn", "Paris")])
    orphans = '{"relations": [], "gaps": []}'
    out, built = _build(tmp_path, [*RECORDED["pass1"], pass2, orphans])
    assert built.returncode == 0, built.stderr

    graph = Graph().parse(out / "knowledge_graph.ttl", format="turtle")
    entities = {
        (str(graph.value(s, RDFS.label)), str(t)[len(SCHEMA) :]): s
        for s, t in graph.subject_objects(RDF.type)
        if str(t).startswith(SCHEMA)
    }
    assert set(entities) == set(names)
    assert len(set(entities.values())) == len(names)  # one IRI each: nothing merged
    assert str(entities[("東京", "Place")]).endswith("/東京")  # readable in its own script
    assert str(entities[("Москва", "Place")]).endswith("/Москва")
    born = SCHEMA + "bornIn"
    edges = {(s, o) for s, p, o in graph if str(p) == born}
    c, c_sharp = entities[("C", "Person")], entities[("C#", "Place")]
    assert edges == {(c, c_sharp), (entities[("Paris", "Person")], entities[("Paris", "Place")])}

    shown = run_cli(tmp_path, "kg", "show", str(out), "大阪", "--json")
    assert json.loads(shown.stdout)["types"] == ["Place"], shown.stderr


def test_pass2_bounds_are_enforced_on_replies(tmp_path: Path) -> None:
    too_many = _reply([(f"Person {i}", "Person") for i in range(31)], [])
    out, built = _build(tmp_path, [*RECORDED["pass1"], *[too_many] * 6])
    assert built.returncode == 1 and "Traceback" not in built.stderr
    failed = json.loads((out / "pass2_failed.json").read_text())
    assert list(failed.values()) == [
        "pass2: the reply stayed invalid: entities: 31 items, at most 30"
    ]


def test_normalize_names_is_bounded_and_still_finds_the_near_pairs(tmp_path: Path) -> None:
    """1,500 names sharing one word: 21 s when every pair was compared."""
    out = tmp_path / "out"
    out.mkdir()
    names = [f"Entity {i}" for i in range(1500)] + ["Marie Curie", "Curie"]
    records = [
        {"chunk": f"c{n}", "entities": [{"name": x, "type": "Person"} for x in names[n::50]]}
        for n in range(50)
    ]
    (out / "abox.jsonl").write_text(
        "".join(json.dumps(r | {"relations": []}) + "\n" for r in records)
    )
    answers = json.dumps({"answers": [{"pair": 0, "same": True}]})
    _, built = _build(tmp_path, [answers], "--steps", "normalize_names")
    assert built.returncode == 0, built.stderr
    found = json.loads((out / "entities.json").read_text())
    # the work is bounded before it is done: not the 1.1 million pairs of every name
    assert found["comparisons"] == MAX_COMPARISONS and found["comparisons_cut"] is True
    # the small block ("curi") is compared first, so its pair is found and asked
    assert found["asked"][0] == ["Person", "curie", "marie curie"] and len(found["asked"]) == 30
    assert found["canonical"]["Person"]["Curie"] == "Marie Curie"
