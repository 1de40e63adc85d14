"""Steps 1-2: preprocess (documents to text) and ingest (chunks, manifest, pass1's sample)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from .context import PreconditionError, RunContext
from .documents import chunk_text, find_documents, slug, to_text

__all__ = ["ingest", "preprocess", "preprocess_params"]


def _documents(ctx: RunContext) -> tuple[Path, list[Path], list[str]]:
    root = ctx.options.docs
    if root is None or not root.exists():
        raise PreconditionError(f"no documents at {root}: give the DOCS folder")
    found, skipped = find_documents(root, ctx.options.max_files)
    return root, found, skipped


def _name(root: Path, path: Path) -> str:
    return path.name if path == root else str(path.relative_to(root))


def preprocess_params(ctx: RunContext) -> Any:
    """preprocess's inputs live outside the workspace: their names, sizes and digests."""
    root, found, skipped = _documents(ctx)
    listed = []
    for path in found:
        size = path.stat().st_size
        digest = _digest(path) if size <= ctx.options.max_doc_bytes else f"too large: {size}"
        listed.append([_name(root, path), digest])
    return {"docs": listed, "skipped": skipped, "cap": ctx.options.max_doc_bytes}


def _text_file(name: str) -> str:
    """Where a document's text goes: one flat file per document, named by a digest of its
    whole name (a readable part alone would collide: `a/b.md` and `a__b.md`)."""
    return f"text/{slug(name)}-{hashlib.sha256(name.encode()).hexdigest()[:16]}.txt"


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


async def preprocess(ctx: RunContext) -> None:
    root, found, skipped = _documents(ctx)
    docs = []
    for done, path in enumerate(found, 1):
        name, size = _name(root, path), path.stat().st_size
        if size > ctx.options.max_doc_bytes:
            skipped.append(f"{path}: {size} bytes, over the cap of {ctx.options.max_doc_bytes}")
            continue
        data = path.read_bytes()[: ctx.options.max_doc_bytes]
        try:
            text = to_text(path, data)
        except ValueError as err:
            skipped.append(str(err))
            continue
        target = _text_file(name)
        ctx.ws.write_text(target, text)
        docs.append({"doc": name, "sha256": hashlib.sha256(data).hexdigest(), "text": target})
        ctx.progress.advance("preprocess", done, len(found))
    for reason in skipped:
        ctx.progress.event("preprocess", "skipped", reason=reason)
    if not docs:
        raise PreconditionError(f"no readable document under {root}")
    ctx.ws.write_json("docs.json", {"docs": docs, "skipped": skipped})


async def ingest(ctx: RunContext) -> None:
    ctx.need("docs.json")
    options = ctx.options
    manifest, lines, by_doc = [], [], []
    for doc in ctx.ws.read_json("docs.json")["docs"]:
        text = ctx.ws.path(doc["text"]).read_text(encoding="utf-8")
        chunks = chunk_text(doc["doc"], text, options.chunk_size, options.overlap)
        manifest.append(
            {"doc": doc["doc"], "sha256": doc["sha256"], "chunks": [c.id for c in chunks]}
        )
        lines += [
            json.dumps({"id": c.id, "doc": c.doc, "index": c.index, "text": c.text}) for c in chunks
        ]
        by_doc.append(lines[len(lines) - len(chunks) :])
    ctx.ws.write_text("chunks.jsonl", "\n".join(lines) + "\n")
    ctx.ws.write_json("manifest.json", {"documents": manifest, "chunk_count": len(lines)})
    ctx.ws.write_text("sample.jsonl", "\n".join(_round_robin(by_doc, options.sample_chunks)) + "\n")


def _round_robin(groups: list[list[str]], limit: int) -> list[str]:
    """pass1's sample: the first chunk of each document, then the second, ... up to `limit`."""
    picked: list[str] = []
    depth = 0
    while len(picked) < limit and any(depth < len(g) for g in groups):
        picked += [g[depth] for g in groups if depth < len(g)][: limit - len(picked)]
        depth += 1
    return picked


def read_chunks(ctx: RunContext, name: str = "chunks.jsonl") -> list[dict[str, Any]]:
    ctx.need(name)
    lines = ctx.ws.path(name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]
