"""`kg show`: one entity of the graph, its relations both ways and the chunks they came from."""

from __future__ import annotations

from typing import Any

from rdflib import RDF, RDFS, Graph, Literal, URIRef

from .tbox import SCHEMA

__all__ = ["describe"]

_PROV_FROM = URIRef("http://www.w3.org/ns/prov#wasDerivedFrom")


def _find(graph: Graph, entity: str) -> URIRef | None:
    if (URIRef(entity), RDF.type, None) in graph:
        return URIRef(entity)
    wanted = entity.casefold()
    for subject, _, label in graph.triples((None, RDFS.label, None)):
        if (
            isinstance(label, Literal)
            and str(label).casefold() == wanted
            and isinstance(subject, URIRef)
        ):
            return subject
    return None


def _short(graph: Graph, node: Any) -> str:
    label = graph.value(node, RDFS.label)
    return str(label) if label is not None else str(node)


def _sources(graph: Graph, s: Any, p: Any, o: Any) -> list[str]:
    found = []
    for statement in graph.subjects(RDF.subject, s):
        if (statement, RDF.predicate, p) in graph and (statement, RDF.object, o) in graph:
            found += [str(src).rsplit("/", 1)[-1] for src in graph.objects(statement, _PROV_FROM)]
    return sorted(found)


def describe(graph: Graph, entity: str) -> dict[str, Any] | None:
    iri = _find(graph, entity)
    if iri is None:
        return None
    schema = str(SCHEMA)
    types = sorted(
        str(t)[len(schema) :] for t in graph.objects(iri, RDF.type) if str(t).startswith(schema)
    )
    relations = []
    for direction, triples in (
        ("->", graph.triples((iri, None, None))),
        ("<-", graph.triples((None, None, iri))),
    ):
        for s, p, o in triples:
            if not str(p).startswith(schema):
                continue
            other = o if direction == "->" else s
            relations.append(
                {
                    "direction": direction,
                    "predicate": str(p)[len(schema) :],
                    "other": _short(graph, other),
                    "sources": _sources(graph, s, p, o),
                }
            )
    return {"iri": str(iri), "label": _short(graph, iri), "types": types, "relations": relations}
