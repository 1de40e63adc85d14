"""Steps 7-8: pass2 (the ABox of each chunk, concurrently, each result persisted atomically on
arrival so that a kill loses only the chunks in flight) and normalize_names."""

from __future__ import annotations

import asyncio
import difflib
import hashlib
import json
import re
from typing import Any

from .asking import ModelReplyError
from .context import RunContext, StepError
from .steps_text import read_chunks

__all__ = ["normalize_names", "pass2"]

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


def rule_key(name: str) -> str:
    """Names equal under this rule are one entity without asking: case, punctuation, "the"."""
    words = re.sub(r"[^\w\s]", " ", name.lower()).split()
    return " ".join(words[1:] if words[:1] == ["the"] and len(words) > 1 else words)


MERGE_SYSTEM = (
    "For each numbered pair of names, say whether both name the same real-world thing. Reply "
    "with JSON only: `answers`, one object per pair with `pair` (its number) and `same` "
    "(true/false)."
)


def merge_schema(pairs: int) -> dict[str, Any]:
    """One answer per pair at most: a small model cannot ramble on past them."""
    answer = {
        "type": "object",
        "properties": {"pair": {"type": "integer"}, "same": {"type": "boolean"}},
        "required": ["pair", "same"],
    }
    return {
        "type": "object",
        "properties": {"answers": {"type": "array", "maxItems": pairs, "items": answer}},
        "required": ["answers"],
    }


async def normalize_names(ctx: RunContext) -> None:
    groups: dict[str, dict[str, Any]] = {}  # rule key -> {names, type}
    for record in read_abox(ctx):
        for entity in record["entities"]:
            group = groups.setdefault(
                rule_key(entity["name"]), {"names": set(), "type": entity["type"]}
            )
            group["names"].add(entity["name"])
    keys = sorted(k for k in groups if k)
    pairs = _candidates(keys, groups)[: ctx.options.max_pairs]
    confirmed: list[tuple[str, str]] = []
    if pairs:
        listing = "\n".join(f"{i}. {a!r} / {b!r}" for i, (a, b) in enumerate(pairs))
        asker = await ctx.asker()
        reply = await asker.ask_json(
            "normalize_names", MERGE_SYSTEM, listing, merge_schema(len(pairs))
        )
        answers = {
            a.get("pair"): a.get("same") for a in reply.get("answers", []) if isinstance(a, dict)
        }
        confirmed = [pair for i, pair in enumerate(pairs) if answers.get(i) is True]
    canonical = _merge(keys, confirmed, groups)
    ctx.ws.write_json(
        "entities.json",
        {
            "canonical": canonical,
            "asked": [list(p) for p in pairs],
            "merged": [list(p) for p in confirmed],
        },
    )


def _candidates(keys: list[str], groups: dict[str, dict[str, Any]]) -> list[tuple[str, str]]:
    """Pairs of one type where one name's words contain the other's, or nearly equal names."""
    pairs = []
    for i, a in enumerate(keys):
        for b in keys[i + 1 :]:
            if groups[a]["type"] != groups[b]["type"]:
                continue
            wa, wb = set(a.split()), set(b.split())
            if wa <= wb or wb <= wa or difflib.SequenceMatcher(None, a, b).ratio() >= 0.85:
                pairs.append((a, b))
    return pairs


def _merge(
    keys: list[str], merged: list[tuple[str, str]], groups: dict[str, dict[str, Any]]
) -> dict[str, str]:
    """Every surface name to its canonical name: the longest of its merged group, preferring
    names without a leading article."""
    parent = {k: k for k in keys}

    def root(k: str) -> str:
        while parent[k] != k:
            k = parent[k]
        return k

    for a, b in merged:
        parent[root(a)] = root(b)
    members: dict[str, list[str]] = {}
    for k in keys:
        members.setdefault(root(k), []).extend(sorted(groups[k]["names"]))
    result = {}
    for names in members.values():
        best = max(names, key=lambda n: (not n.lower().startswith("the "), len(n), n))
        result.update({n: best for n in names})
    return result
