"""Steps 9-12: assemble (with provenance by RDF reification), orphan_score, orphan_connect,
validate_graph (SHACL shapes from the schema, pyshacl) and export."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any

from rdflib import RDF, RDFS, Graph, Literal, Namespace, URIRef

from .context import RunContext, StepError
from .iris import entity_iris
from .steps_extract import read_abox
from .tbox import ID, SCHEMA, shapes_graph, tbox_graph

__all__ = ["assemble", "export", "orphan_connect", "orphan_score", "validate_graph"]

PROV = Namespace("http://www.w3.org/ns/prov#")
ORPHAN_SOURCE = "orphan_connect"


class _Builder:
    """The ABox under construction: entities, one type each, and relations kept only when
    their ends are entities of the property's domain and range."""

    def __init__(self, tbox: dict[str, Any], graph: Graph | None = None) -> None:
        self.graph = graph if graph is not None else Graph()
        self.graph.bind("kg", ID)
        self.graph.bind("kgs", SCHEMA)
        self.graph.bind("prov", PROV)
        self.props = {p["name"]: p for p in tbox["properties"]}
        self.parents = {c["name"]: c["parent"] for c in tbox["classes"]}
        self.types: dict[URIRef, set[str]] = {}
        self.rejected: list[str] = []

    def entities(self, entities: Iterable[tuple[str, str]]) -> dict[tuple[str, str], URIRef]:
        """All the entities (type, name) at once, so that colliding IRIs are told apart."""
        iris = entity_iris(entities)
        for (cls, name), iri in iris.items():
            self.types.setdefault(iri, set()).add(cls)
            self.graph.add((iri, RDF.type, SCHEMA[cls]))
            self.graph.add((iri, RDFS.label, Literal(name)))
        return iris

    def _is_a(self, iri: URIRef, cls: str) -> bool:
        for start in self.types.get(iri, ()):
            node, seen = start, set()
            while node and node not in seen:
                if node == cls:
                    return True
                seen.add(node)
                node = self.parents.get(node, "")
        return False

    def relation(
        self, subjects: list[URIRef], predicate: str, objects: list[URIRef], said: str, source: str
    ) -> None:
        """`said` (subject predicate object as extracted) between the first of the entities
        its names may be that fit the property's domain and range."""
        prop = self.props.get(predicate)
        s = next((i for i in subjects if prop and self._is_a(i, prop["domain"])), None)
        o = next((i for i in objects if prop and self._is_a(i, prop["range"])), None)
        if s is None or o is None:
            self.rejected.append(f"{said} ({source}): not a known entity of the domain and range")
            return
        p = SCHEMA[predicate]
        self.graph.add((s, p, o))
        statement = ID["stmt/" + hashlib.sha256(f"{s} {p} {o} {source}".encode()).hexdigest()[:16]]
        self.graph.add((statement, RDF.type, RDF.Statement))
        self.graph.add((statement, RDF.subject, s))
        self.graph.add((statement, RDF.predicate, p))
        self.graph.add((statement, RDF.object, o))
        self.graph.add((statement, PROV.wasDerivedFrom, ID["chunk/" + source]))


async def assemble(ctx: RunContext) -> None:
    """A relation names its ends without their types: each end is the entity of that name in
    the same chunk, else of any chunk, whose type fits the property."""
    ctx.need("schema.json", "entities.json")
    builder = _Builder(ctx.ws.read_json("schema.json"))
    canonical = ctx.ws.read_json("entities.json")["canonical"]
    records = read_abox(ctx)

    def entity(cls: str, name: str) -> tuple[str, str]:
        return cls, canonical.get(cls, {}).get(name, name)

    everywhere: dict[str, set[str]] = {}  # surface name -> its types in any chunk
    for record in records:
        for e in record["entities"]:
            everywhere.setdefault(e["name"], set()).add(e["type"])
    iris = builder.entities(entity(t, n) for n, types in everywhere.items() for t in types)
    for record in records:
        here: dict[str, set[str]] = {}
        for e in record["entities"]:
            here.setdefault(e["name"], set()).add(e["type"])

        def ends(name: str, here: dict[str, set[str]] = here) -> list[URIRef]:
            types = here.get(name) or everywhere.get(name, set())
            return [iris[entity(t, name)] for t in sorted(types)]

        for rel in record["relations"]:
            said = f"{rel['subject']} {rel['predicate']} {rel['object']}"
            builder.relation(
                ends(rel["subject"]), rel["predicate"], ends(rel["object"]), said, record["chunk"]
            )
    ctx.ws.write_text("graph_assembled.ttl", builder.graph.serialize(format="turtle"))
    ctx.ws.write_json("assemble_report.json", {"rejected": builder.rejected})


def _load(ctx: RunContext, name: str) -> Graph:
    ctx.need(name)
    return Graph().parse(ctx.ws.path(name), format="turtle")


def _entities(graph: Graph) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for s, _, o in graph.triples((None, RDF.type, None)):
        if isinstance(o, URIRef) and str(o).startswith(str(SCHEMA)):
            found.setdefault(str(s), {"types": [], "label": str(graph.value(s, RDFS.label))})
            found[str(s)]["types"].append(str(o)[len(str(SCHEMA)) :])
    return found


def _edges(graph: Graph) -> list[tuple[str, str, str]]:
    return sorted(
        (str(s), str(p)[len(str(SCHEMA)) :], str(o))
        for s, p, o in graph
        if str(p).startswith(str(SCHEMA)) and isinstance(o, URIRef)
    )


async def orphan_score(ctx: RunContext) -> None:
    graph = _load(ctx, "graph_assembled.ttl")
    degree = {iri: 0 for iri in _entities(graph)}
    for s, _, o in _edges(graph):
        for end in (s, o):
            degree[end] = degree.get(end, 0) + 1
    entities = _entities(graph)
    orphans = [
        {"iri": iri, "label": entities[iri]["label"], "types": entities[iri]["types"]}
        for iri, d in sorted(degree.items())
        if d == 0 and iri in entities
    ]
    ctx.ws.write_json("orphans.json", {"degree": degree, "orphans": orphans})


ORPHAN_SYSTEM = (
    "Some entities of a knowledge graph have no relation. Using only the schema's relations, "
    "propose relations that link each of them to another listed entity; where none fits, "
    "propose a schema gap. Reply with JSON only: `relations` (`subject`, `predicate`, `object`, "
    "names as listed) and `gaps` (`entity`, `suggestion`).\n\nSchema:\n{schema}"
)


async def orphan_connect(ctx: RunContext) -> None:
    ctx.need("orphans.json", "schema_flat.txt", "abox_schema.json")
    orphans = ctx.ws.read_json("orphans.json")["orphans"][: ctx.options.max_orphans]
    result: dict[str, Any] = {"relations": [], "gaps": []}
    if orphans:
        graph = _load(ctx, "graph_assembled.ttl")
        names = sorted({e["label"] for e in _entities(graph).values()})[:200]
        flat = ctx.ws.path("schema_flat.txt").read_text(encoding="utf-8")
        schema = ctx.ws.read_json("abox_schema.json")["properties"]["relations"]
        reply_schema = {
            "type": "object",
            "properties": {
                "relations": schema,
                "gaps": {
                    "type": "array",
                    "maxItems": 8,
                    "items": {
                        "type": "object",
                        "properties": {
                            "entity": {"type": "string", "maxLength": 120},
                            "suggestion": {"type": "string", "maxLength": 300},
                        },
                        "required": ["entity", "suggestion"],
                    },
                },
            },
            "required": ["relations", "gaps"],
        }
        prompt = (
            "Entities without relations:\n"
            + "\n".join(f"- {o['label']} ({', '.join(o['types'])})" for o in orphans)
            + "\n\nAll entities:\n"
            + "\n".join(f"- {n}" for n in names)
        )
        asker = await ctx.asker()
        reply = await asker.ask_json(
            "orphan_connect", ORPHAN_SYSTEM.format(schema=flat), prompt, reply_schema
        )
        result = {k: reply[k] for k in ("relations", "gaps")}
    ctx.ws.write_json("orphan_links.json", result)


def no_orphan_links(ctx: RunContext, why: str) -> None:
    """orphan_connect's output when the model could not give it: no links, and why."""
    ctx.ws.write_json("orphan_links.json", {"relations": [], "gaps": [], "failed": why})


async def validate_graph(ctx: RunContext) -> None:
    from pyshacl import validate

    ctx.need("schema.json", "orphan_links.json")
    tbox = ctx.ws.read_json("schema.json")
    graph = _load(ctx, "graph_assembled.ttl")
    builder = _Builder(tbox, graph)
    labels: dict[str, list[URIRef]] = {}
    for iri, info in _entities(graph).items():
        builder.types[URIRef(iri)] = set(info["types"])
        labels.setdefault(info["label"], []).append(URIRef(iri))
    for rel in ctx.ws.read_json("orphan_links.json")["relations"]:
        said = f"{rel['subject']} {rel['predicate']} {rel['object']}"
        subjects, objects = labels.get(rel["subject"], []), labels.get(rel["object"], [])
        builder.relation(subjects, rel["predicate"], objects, said, ORPHAN_SOURCE)
    shapes = shapes_graph(tbox)
    conforms, _, text = validate(
        graph, shacl_graph=shapes, ont_graph=tbox_graph(tbox), inference="none"
    )
    ctx.ws.write_text("shapes.ttl", shapes.serialize(format="turtle"))
    ctx.ws.write_text("validation_report.txt", str(text))
    if not conforms:
        raise StepError(
            "the graph does not conform to the schema's shapes: see "
            f"{ctx.ws.path('validation_report.txt')}"
        )
    ctx.ws.write_text("knowledge_graph.ttl", graph.serialize(format="turtle"))


async def export(ctx: RunContext) -> None:
    graph = _load(ctx, "knowledge_graph.ttl")
    ctx.ws.write_text("export/graph.ttl", graph.serialize(format="turtle"))
    ctx.ws.write_text("export/graph.jsonld", graph.serialize(format="json-ld", indent=1))
    ctx.ws.write_text("export/graph.nt", graph.serialize(format="nt"))
    nodes = [
        json.dumps({"id": iri, **info}, ensure_ascii=False)
        for iri, info in sorted(_entities(graph).items())
    ]
    edges = [json.dumps({"source": s, "predicate": p, "target": o}) for s, p, o in _edges(graph)]
    ctx.ws.write_text("export/nodes.jsonl", "".join(n + "\n" for n in nodes))
    ctx.ws.write_text("export/edges.jsonl", "".join(e + "\n" for e in edges))
