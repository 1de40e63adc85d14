"""The schema checks and what is generated from the schema."""

from __future__ import annotations

from itertools import pairwise

from agentframe_kg.documents import chunk_text
from agentframe_kg.tbox import SCHEMA, check_tbox, combine, shapes_graph
from rdflib import SH, Graph, URIRef


def test_the_structural_checks_name_each_error() -> None:
    tbox = {
        "classes": [
            {"name": "A", "parent": "B"},
            {"name": "B", "parent": "A"},
            {"name": "bad name", "parent": ""},
            {"name": "C", "parent": "Nope"},
        ],
        "properties": [
            {"name": "knows", "domain": "A", "range": "Z"},
            {"name": "Has Space", "domain": "A", "range": "B"},
        ],
    }
    errors = "\n".join(check_tbox(tbox))
    for expected in (
        "class A is its own ancestor",
        "class B is its own ancestor",
        "'bad name' is not a valid IRI local name",
        "parent 'Nope' is not a declared",
        "knows: range 'Z' is not a declared class",
        "'Has Space' is not a valid IRI",
    ):
        assert expected in errors
    assert check_tbox({"classes": "x"}) == [
        "the reply must be an object with `classes` and `properties` lists"
    ]


def test_combine_drops_self_parents_and_keeps_second_parents_for_the_check() -> None:
    tbox = combine(
        ["A", "B", "C"],
        {
            "subclasses": [
                {"name": "A", "parent": "A"},
                {"name": "B", "parent": "A"},
                {"name": "B", "parent": "C"},
            ],
            "properties": [],
        },
    )
    assert tbox["classes"][:3] == [
        {"name": "A", "parent": ""},
        {"name": "B", "parent": "A"},
        {"name": "C", "parent": ""},
    ]
    assert "class B is declared twice" in check_tbox(tbox)


def test_shapes_require_domain_range_and_label() -> None:
    shapes = shapes_graph(
        {
            "classes": [{"name": "P", "parent": ""}, {"name": "Q", "parent": ""}],
            "properties": [{"name": "r", "domain": "P", "range": "Q"}],
        }
    )
    assert isinstance(shapes, Graph)
    domain = URIRef(f"{SCHEMA}r_domainShape")
    assert (domain, SH.targetSubjectsOf, SCHEMA["r"]) in shapes
    assert (domain, SH["class"], SCHEMA["P"]) in shapes
    assert (URIRef(f"{SCHEMA}r_rangeShape"), SH["class"], SCHEMA["Q"]) in shapes


def test_chunks_overlap_and_have_stable_ids() -> None:
    text = " ".join(f"word{i}" for i in range(400))
    chunks = chunk_text("a.md", text, 300, 60)
    assert len(chunks) > 5
    for before, after in pairwise(chunks):
        assert before.text[-40:].split()[-1] in after.text  # the overlap repeats the end
    assert [c.id for c in chunks] == [c.id for c in chunk_text("a.md", text, 300, 60)]
