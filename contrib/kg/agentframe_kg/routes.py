"""`GET /v1/kg` of `agentframe serve` (its `agentframe_serve.routes` entry point): the
knowledge graph of the `agentframe kg build` output folder the server's config names
(`serve.kg_folder`; never a path from the request): entities (types, labels), relations
with the source chunks of each statement, and the SHACL report.

It reads what the build's export step wrote (`export/nodes.jsonl`, `export/edges.jsonl`,
the reified statements of `export/graph.nt`), `chunks.jsonl` and `validation_report.txt`,
each through `confined` (symbolic links out of the folder refused) and size-capped."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

from agentframe_serve import ApiCall, ApiError, ApiRoute, ServeSettings
from starlette.responses import JSONResponse

from agentframe_core import FileReadError, PathEscapeError, confined, read_text_file

__all__ = ["routes", "show_kg"]

MAX_FILE_BYTES = 32 * 1024 * 1024
MAX_NODES = 5_000
MAX_EDGES = 20_000
MAX_CHUNK_CHARS = 2_000

_RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
_DERIVED = "http://www.w3.org/ns/prov#wasDerivedFrom"
_IRI_TRIPLE = re.compile(r"^<([^>]*)> <([^>]*)> <([^>]*)> \.$")


def routes(settings: ServeSettings) -> list[ApiRoute]:
    return [ApiRoute("/v1/kg", show_kg)]


async def show_kg(call: ApiCall) -> JSONResponse:
    folder = call.settings.kg_folder
    if folder is None:
        raise ApiError(
            404, "no knowledge graph folder: set serve.kg_folder (or agentframe ui --kg DIR)"
        )
    return JSONResponse(await asyncio.to_thread(_read, call.cwd / folder))


def _text(root: Path, name: str) -> str | None:
    try:
        path = confined(root / name, [root])
    except PathEscapeError:
        raise ApiError(500, f"{name} leads out of the knowledge graph folder") from None
    if not path.is_file():
        return None
    try:
        return read_text_file(path, MAX_FILE_BYTES, "knowledge graph file")
    except FileReadError as err:
        raise ApiError(500, f"{name}: {err}") from None


def _lines(text: str | None, cap: int) -> tuple[list[dict[str, Any]], bool]:
    rows = [json.loads(line) for line in (text or "").splitlines() if line.strip()]
    return rows[:cap], len(rows) > cap


def _read(root: Path) -> dict[str, Any]:
    root = root.resolve()
    if not root.is_dir():
        raise ApiError(404, f"the knowledge graph folder {root.name!r} does not exist")
    nodes_text = _text(root, "export/nodes.jsonl")
    if nodes_text is None:
        raise ApiError(404, f"{root.name}: no export/nodes.jsonl (run agentframe kg build)")
    try:
        nodes, nodes_cut = _lines(nodes_text, MAX_NODES)
        edges, edges_cut = _lines(_text(root, "export/edges.jsonl"), MAX_EDGES)
        chunk_rows, _ = _lines(_text(root, "chunks.jsonl"), 10**7)
    except ValueError as err:
        raise ApiError(500, f"{root.name}: a line is not JSON: {err}") from None
    sources = _statement_sources(_text(root, "export/graph.nt") or "")
    wanted: set[str] = set()
    for edge in edges:
        edge["chunks"] = sources.get((edge["source"], edge["predicate"], edge["target"]), [])
        wanted.update(edge["chunks"])
    chunks = {
        str(c["id"]): {"doc": c.get("doc"), "text": str(c.get("text", ""))[:MAX_CHUNK_CHARS]}
        for c in chunk_rows
        if str(c.get("id")) in wanted
    }
    report = _text(root, "validation_report.txt")
    return {
        "object": "kg",
        "folder": root.name,
        "nodes": nodes,
        "edges": edges,
        "truncated": nodes_cut or edges_cut,
        "chunks": chunks,
        "shacl": {
            "conforms": None if report is None else "Conforms: True" in report,
            "report": (report or "")[:100_000],
        },
    }


def _statement_sources(ntriples: str) -> dict[tuple[str, str, str], list[str]]:
    """(subject, predicate local name, object) -> the chunk ids its reified statements
    were derived from, read from the N-Triples export."""
    parts: dict[str, dict[str, str]] = {}
    derived: dict[str, list[str]] = {}
    for line in ntriples.splitlines():
        match = _IRI_TRIPLE.match(line.strip())
        if match is None:
            continue
        s, p, o = match.groups()
        if p in (_RDF + "subject", _RDF + "predicate", _RDF + "object"):
            parts.setdefault(s, {})[p[len(_RDF) :]] = o
        elif p == _DERIVED:
            derived.setdefault(s, []).append(o.rsplit("chunk/", 1)[-1])
    out: dict[tuple[str, str, str], list[str]] = {}
    for statement, spo in parts.items():
        if {"subject", "predicate", "object"} <= spo.keys():
            predicate = re.split(r"[#/]", spo["predicate"])[-1]
            key = (spo["subject"], predicate, spo["object"])
            out.setdefault(key, []).extend(derived.get(statement, []))
    return out
