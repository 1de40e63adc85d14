"""Steps 7-8: pass2 (the ABox of each chunk, concurrently, each result persisted atomically on
arrival so that a kill loses only the chunks in flight) and normalize_names."""

from __future__ import annotations

import asyncio
import hashlib
import json
from typing import Any

from .asking import ModelReplyError
from .context import RunContext, StepError
from .matching import Key, candidate_pairs, canonical_names, rule_key
from .steps_text import read_chunks

__all__ = ["normalize_names", "pass2"]

#: normalize_names compares at most this many pairs of names (within blocks, see matching).
MAX_COMPARISONS = 50_000

PASS2_SYSTEM = (
    "You extract a knowledge graph from text. Use only the classes and relations of this "
    "schema:\n{schema}\nReply with JSON only: `entities` (each a `name` as written in the text "
    "and its `type`) and `relations` (`subject` and `object` are entity names, `predicate` a "
    "relation of the schema)."
)


async def pass2(ctx: RunContext) -> None:
    ctx.need("schema_flat.txt", "abox_schema.json", "chunks.jsonl")
    chunks = read_chunks(ctx)
    flat = ctx.ws.path("schema_flat.txt").read_text(encoding="utf-8")
    schema = ctx.ws.read_json("abox_schema.json")
    keys = {c["id"]: _key(flat, schema, c["text"]) for c in chunks}
    todo = [c for c in chunks if _cached(ctx, c["id"], keys[c["id"]]) is None]
    done = len(chunks) - len(todo)
    ctx.progress.advance("pass2", done, len(chunks))
    failed: dict[str, str] = {}
    for _round in (1, 2):  # failed chunks are retried once, after the others
        failed = await _extract_all(ctx, todo, keys, flat, schema, done, len(chunks))
        todo = [c for c in todo if c["id"] in failed]
        done = len(chunks) - len(todo)
        if not todo:
            break
    ctx.ws.write_json("pass2_failed.json", failed)
    if failed:
        first = min(failed)
        raise StepError(
            f"{len(failed)} chunks failed twice (see pass2_failed.json; {first}: "
            f"{failed[first][:300]}); build again to retry them"
        )
    lines = []
    for chunk in chunks:
        result = _cached(ctx, chunk["id"], keys[chunk["id"]])
        if result is None:
            raise StepError(f"pass2/{chunk['id']}.json vanished or was changed; build again")
        lines.append(json.dumps({"chunk": chunk["id"], **result}))
    ctx.ws.write_text("abox.jsonl", "\n".join(lines) + "\n")


def _key(flat: str, schema: Any, text: str) -> str:
    return hashlib.sha256(
        f"{flat}\0{json.dumps(schema, sort_keys=True)}\0{text}".encode()
    ).hexdigest()


def _cached(ctx: RunContext, chunk_id: str, key: str) -> dict[str, Any] | None:
    try:
        value = ctx.ws.read_json(f"pass2/{chunk_id}.json")
    except (OSError, ValueError):
        return None
    if not isinstance(value, dict) or value.get("key") != key:
        return None
    return {"entities": value["entities"], "relations": value["relations"]}


async def _extract_all(
    ctx: RunContext,
    todo: list[dict[str, Any]],
    keys: dict[str, str],
    flat: str,
    schema: dict[str, Any],
    done: int,
    total: int,
) -> dict[str, str]:
    gate = asyncio.Semaphore(max(1, ctx.options.concurrency))
    failed: dict[str, str] = {}
    finished = done
    asker = await ctx.asker()

    async def one(chunk: dict[str, Any]) -> None:
        nonlocal finished
        async with gate:
            prompt = f"Text:\n{chunk['text']}"
            try:
                reply = await asker.ask_json(
                    "pass2", PASS2_SYSTEM.format(schema=flat), prompt, schema
                )
            except (ModelReplyError, TimeoutError) as err:
                failed[chunk["id"]] = str(err) or "timed out twice"
                return
            record = {"key": keys[chunk["id"]], **_clean(reply)}
            ctx.ws.write_json(f"pass2/{chunk['id']}.json", record)
            finished += 1
            ctx.progress.advance("pass2", finished, total)

    await asyncio.gather(*(one(c) for c in todo))
    return failed


def _clean(reply: dict[str, Any]) -> dict[str, Any]:
    """A reply valid against pass2's schema, with runs of whitespace in names made one space;
    entries whose name was only whitespace dropped."""

    def name(value: str) -> str:
        return " ".join(value.split())

    entities = [{"name": name(e["name"]), "type": e["type"]} for e in reply["entities"]]
    relations = [
        {"subject": name(r["subject"]), "predicate": r["predicate"], "object": name(r["object"])}
        for r in reply["relations"]
    ]
    return {
        "entities": [e for e in entities if e["name"]],
        "relations": [r for r in relations if r["subject"] and r["object"]],
    }


def read_abox(ctx: RunContext) -> list[dict[str, Any]]:
    ctx.need("abox.jsonl")
    lines = ctx.ws.path("abox.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


MERGE_SYSTEM = (
    "For each numbered pair of names, say whether both name the same real-world thing. Reply "
    "with JSON only: `answers`, one object per pair with `pair` (its number) and `same` "
    "(true/false)."
)


def merge_schema(pairs: int) -> dict[str, Any]:
    """One answer per pair at most: a small model cannot ramble on past them."""
    answer = {
        "type": "object",
        "properties": {
            "pair": {"type": "integer", "minimum": 0, "maximum": pairs - 1},
            "same": {"type": "boolean"},
        },
        "required": ["pair", "same"],
    }
    return {
        "type": "object",
        "properties": {"answers": {"type": "array", "maxItems": pairs, "items": answer}},
        "required": ["answers"],
    }


async def normalize_names(ctx: RunContext) -> None:
    groups: dict[Key, set[str]] = {}  # (type, rule key) -> surface names
    for record in read_abox(ctx):
        for entity in record["entities"]:
            key = rule_key(entity["name"])
            if key:
                groups.setdefault((entity["type"], key), set()).add(entity["name"])
    candidates = candidate_pairs(groups, MAX_COMPARISONS)
    pairs = candidates.pairs[: ctx.options.max_pairs]
    confirmed: list[tuple[Key, Key]] = []
    if pairs:
        listing = "\n".join(f"{i}. {a[1]!r} / {b[1]!r} ({a[0]})" for i, (a, b) in enumerate(pairs))
        asker = await ctx.asker()
        reply = await asker.ask_json(
            "normalize_names", MERGE_SYSTEM, listing, merge_schema(len(pairs))
        )
        answers = {a["pair"]: a["same"] for a in reply["answers"]}
        confirmed = [pair for i, pair in enumerate(pairs) if answers.get(i) is True]
    ctx.ws.write_json(
        "entities.json",
        {
            "canonical": canonical_names(groups, confirmed),
            "asked": [[a[0], a[1], b[1]] for a, b in pairs],
            "merged": [[a[0], a[1], b[1]] for a, b in confirmed],
            "comparisons": candidates.comparisons,
            "comparisons_cut": candidates.cut,
        },
    )
