"""The schema (TBox): its JSON form, the structural checks, and what is generated from it —
Turtle (RDFS/OWL), the compact form pass2 prompts use, the ABox reply schema, SHACL shapes."""

from __future__ import annotations

import re
from typing import Any

from rdflib import OWL, RDF, RDFS, SH, BNode, Graph, Literal, Namespace, URIRef

__all__ = [
    "CLASSES_REPLY_SCHEMA",
    "ID",
    "SCHEMA",
    "abox_reply_schema",
    "check_tbox",
    "combine",
    "flatten",
    "relations_reply_schema",
    "shapes_graph",
    "tbox_graph",
]

SCHEMA = Namespace("https://agentframe.dev/kg/schema#")
ID = Namespace("https://agentframe.dev/kg/id/")
_CLASS_NAME = r"^[A-Z][A-Za-z0-9]{0,63}$"
_PROPERTY_NAME = r"^[a-z][A-Za-z0-9]{0,63}$"

CLASSES_REPLY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "classes": {
            "type": "array",
            "minItems": 1,
            "maxItems": 12,
            "items": {"type": "string", "pattern": _CLASS_NAME},
        },
    },
    "required": ["classes"],
}


def relations_reply_schema(classes: list[str]) -> dict[str, Any]:
    """pass1's second question: parents, domains and ranges are enums of the classes just
    declared, so that a constrained model cannot name an undeclared one."""
    return {
        "type": "object",
        "properties": {
            "subclasses": {
                "type": "array",
                "maxItems": len(classes),
                "items": {
                    "type": "object",
                    "properties": {"name": {"enum": classes}, "parent": {"enum": classes}},
                    "required": ["name", "parent"],
                },
            },
            "properties": {
                "type": "array",
                "maxItems": 24,
                "items": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string", "pattern": _PROPERTY_NAME},
                        "domain": {"enum": classes},
                        "range": {"enum": classes},
                    },
                    "required": ["name", "domain", "range"],
                },
            },
        },
        "required": ["subclasses", "properties"],
    }


def combine(classes: list[str], relations: dict[str, Any]) -> dict[str, Any]:
    """The two answers of pass1 as one schema (schema.json's form); a class given two parents
    keeps both entries, so that check_tbox reports it. "X is a kind of X" says nothing (the
    reply schema cannot forbid it) and is dropped; longer cycles are reported."""
    parents = {c: "" for c in classes}
    entries = [{"name": c, "parent": ""} for c in classes]
    for item in relations.get("subclasses") or []:
        if not isinstance(item, dict) or item.get("name") == item.get("parent"):
            continue
        if parents.get(item.get("name", "")) == "":
            parents[item["name"]] = str(item.get("parent", ""))
        else:
            entries.append({"name": str(item.get("name")), "parent": str(item.get("parent"))})
    entries[: len(classes)] = [{"name": c, "parent": parents[c]} for c in classes]
    return {"classes": entries, "properties": relations.get("properties")}


def check_tbox(tbox: dict[str, Any]) -> list[str]:
    """Every structural error of a proposed schema, each a sentence the model can act on."""
    if not isinstance(tbox.get("classes"), list) or not isinstance(tbox.get("properties"), list):
        return ["the reply must be an object with `classes` and `properties` lists"]
    loose = [
        f"{key}[{i}] must be an object"
        for key in ("classes", "properties")
        for i, item in enumerate(tbox[key])
        if not isinstance(item, dict)
    ]
    if loose:  # schema.json edited during review: say where, before reading fields
        return loose[:10]
    errors: list[str] = []
    classes: dict[str, str] = {}
    for item in tbox["classes"]:
        name, parent = str(item.get("name", "")), str(item.get("parent", "") or "")
        if not re.match(_CLASS_NAME, name):
            errors.append(f"class name {name!r} is not a valid IRI local name (UpperCamelCase)")
        elif name in classes:
            errors.append(f"class {name} is declared twice")
        classes[name] = parent
    for name, parent in classes.items():
        if parent and parent not in classes:
            errors.append(f"class {name}: parent {parent!r} is not a declared class")
    errors += _cycles(classes)
    seen: set[str] = set()
    for item in tbox["properties"]:
        name = str(item.get("name", ""))
        if not re.match(_PROPERTY_NAME, name):
            errors.append(f"property name {name!r} is not a valid IRI local name (lowerCamelCase)")
        elif name in seen:
            errors.append(f"property {name} is declared twice")
        seen.add(name)
        for end in ("domain", "range"):
            if str(item.get(end, "")) not in classes:
                errors.append(f"property {name}: {end} {item.get(end)!r} is not a declared class")
    if not classes:
        errors.append("the schema declares no class")
    return errors


def _cycles(parents: dict[str, str]) -> list[str]:
    errors = []
    for start in parents:
        seen, node = {start}, parents.get(start, "")
        while node:
            if node == start:
                errors.append(f"class {start} is its own ancestor (subClassOf cycle)")
                break
            if node in seen:
                break
            seen.add(node)
            node = parents.get(node, "")
    return errors


def tbox_graph(tbox: dict[str, Any]) -> Graph:
    graph = Graph()
    graph.bind("kgs", SCHEMA)
    graph.bind("owl", OWL)
    for item in tbox["classes"]:
        cls = SCHEMA[item["name"]]
        graph.add((cls, RDF.type, OWL.Class))
        graph.add((cls, RDFS.label, Literal(item["name"])))
        if item.get("parent"):
            graph.add((cls, RDFS.subClassOf, SCHEMA[item["parent"]]))
    for item in tbox["properties"]:
        prop = SCHEMA[item["name"]]
        graph.add((prop, RDF.type, OWL.ObjectProperty))
        graph.add((prop, RDFS.domain, SCHEMA[item["domain"]]))
        graph.add((prop, RDFS.range, SCHEMA[item["range"]]))
    return graph


def flatten(tbox: dict[str, Any]) -> str:
    """The compact schema text pass2 prompts carry: one line per class and per property."""
    lines = ["Classes:"]
    for item in tbox["classes"]:
        parent = f" (a kind of {item['parent']})" if item.get("parent") else ""
        lines.append(f"- {item['name']}{parent}")
    lines.append("Relations (subject type -> object type):")
    for item in tbox["properties"]:
        lines.append(f"- {item['name']}: {item['domain']} -> {item['range']}")
    return "\n".join(lines)


def abox_reply_schema(tbox: dict[str, Any], max_items: int) -> dict[str, Any]:
    """The reply schema of pass2: types and predicates are enums, so that a constrained model
    can only name what the schema declares."""
    classes = [c["name"] for c in tbox["classes"]]
    props = [p["name"] for p in tbox["properties"]] or ["relatedTo"]
    name = {"type": "string", "minLength": 1, "maxLength": 120}
    return {
        "type": "object",
        "properties": {
            "entities": {
                "type": "array",
                "maxItems": max_items,
                "items": {
                    "type": "object",
                    "properties": {"name": name, "type": {"enum": classes}},
                    "required": ["name", "type"],
                },
            },
            "relations": {
                "type": "array",
                "maxItems": max_items,
                "items": {
                    "type": "object",
                    "properties": {
                        "subject": name,
                        "predicate": {"enum": props},
                        "object": name,
                    },
                    "required": ["subject", "predicate", "object"],
                },
            },
        },
        "required": ["entities", "relations"],
    }


def shapes_graph(tbox: dict[str, Any]) -> Graph:
    """SHACL shapes: every instance of a class has a label; every subject and object of a
    property is an instance of its domain and range."""
    shapes = Graph()
    shapes.bind("sh", SH)
    shapes.bind("kgs", SCHEMA)
    for item in tbox["classes"]:
        shape, label = URIRef(f"{SCHEMA}{item['name']}Shape"), BNode()
        shapes.add((shape, RDF.type, SH.NodeShape))
        shapes.add((shape, SH.targetClass, SCHEMA[item["name"]]))
        shapes.add((shape, SH.property, label))
        shapes.add((label, SH.path, RDFS.label))
        shapes.add((label, SH.minCount, Literal(1)))
    for item in tbox["properties"]:
        for end, target in (("domain", SH.targetSubjectsOf), ("range", SH.targetObjectsOf)):
            shape = URIRef(f"{SCHEMA}{item['name']}_{end}Shape")
            shapes.add((shape, RDF.type, SH.NodeShape))
            shapes.add((shape, target, SCHEMA[item["name"]]))
            shapes.add((shape, SH["class"], SCHEMA[item[end]]))
    return shapes
