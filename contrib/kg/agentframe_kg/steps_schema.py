"""Steps 3-6: pass1 (schema induction), schema_validate, human_review, schema_flatten."""

from __future__ import annotations

from typing import Any

from .context import RunContext, StepError
from .steps_text import read_chunks
from .tbox import (
    CLASSES_REPLY_SCHEMA,
    abox_reply_schema,
    check_tbox,
    combine,
    flatten,
    relations_reply_schema,
    tbox_graph,
)

__all__ = ["APPROVAL_FLAG", "human_review", "pass1", "schema_flatten", "schema_validate"]

APPROVAL_FLAG = "schema_approved.flag"

PASS1_SYSTEM = (
    "You design a small ontology for a knowledge graph of these excerpts. Reply with JSON only."
)
CLASSES_PROMPT = (
    "Excerpts:\n\n{excerpt}\n\nList the kinds of things the excerpts talk about, as "
    "`classes`: UpperCamelCase class names such as Person or Place."
)
RELATIONS_PROMPT = (
    "Excerpts:\n\n{excerpt}\n\nThe classes: {classes}.\nGive `subclasses` (a `name` and "
    "its more general `parent` class, only where one is a kind of another) and `properties`: "
    "the relations between the classes, each a lowerCamelCase `name`, a `domain` (the "
    "subject's class) and a `range` (the object's class)."
)


async def pass1(ctx: RunContext) -> None:
    """Two questions, so that even a small model names only declared classes: the classes
    first, then parents and relations constrained to them."""
    sample = read_chunks(ctx, "sample.jsonl")
    excerpt = "\n\n".join(c["text"] for c in sample)[:12_000]
    asker = await ctx.asker()
    reply = await asker.ask_json(
        "pass1",
        PASS1_SYSTEM,
        CLASSES_PROMPT.format(excerpt=excerpt),
        CLASSES_REPLY_SCHEMA,
        lambda value: check_tbox(combine(_strings(value.get("classes")), {"properties": []})),
    )
    classes = _strings(reply["classes"])
    prompt = RELATIONS_PROMPT.format(excerpt=excerpt, classes=", ".join(classes))
    relations = await asker.ask_json(
        "pass1",
        PASS1_SYSTEM,
        prompt,
        relations_reply_schema(classes),
        lambda value: check_tbox(combine(classes, value)),
    )
    tbox = _canonical(combine(classes, relations))
    ctx.ws.write_json("schema.json", tbox)
    ctx.ws.write_text("schema.ttl", tbox_graph(tbox).serialize(format="turtle"))


def _strings(value: Any) -> list[str]:
    """The class names, each once: a name listed twice is the same class, not an error."""
    return list(dict.fromkeys(str(v) for v in value)) if isinstance(value, list) else []


def _canonical(tbox: dict[str, Any]) -> dict[str, Any]:
    """Only the fields the pipeline uses, so stray keys in a reply change nothing."""
    return {
        "classes": [{"name": c["name"], "parent": c.get("parent") or ""} for c in tbox["classes"]],
        "properties": [
            {"name": p["name"], "domain": p["domain"], "range": p["range"]}
            for p in tbox["properties"]
        ],
    }


async def schema_validate(ctx: RunContext) -> None:
    """The structural checks again, on schema.json as it is now (it may have been edited
    during review); pass1 ran the same checks as feedback to the model."""
    ctx.need("schema.json")
    tbox = ctx.ws.read_json("schema.json")
    errors = check_tbox(tbox) if isinstance(tbox, dict) else ["schema.json is not an object"]
    ctx.ws.write_json("schema_report.json", {"errors": errors})
    if errors:
        raise StepError("schema.json is invalid: " + "; ".join(errors[:10]))
    ctx.ws.write_text("schema.ttl", tbox_graph(tbox).serialize(format="turtle"))


class AwaitingApproval(StepError):
    """--review: the schema waits for a person."""


async def human_review(ctx: RunContext) -> None:
    ctx.need("schema.json")
    tbox = ctx.ws.read_json("schema.json")
    ctx.ws.write_text("schema_summary.md", "# Proposed schema\n\n" + flatten(tbox) + "\n")
    if ctx.options.review and not ctx.ws.path(APPROVAL_FLAG).exists():
        raise AwaitingApproval(
            f"review {ctx.ws.path('schema_summary.md')} (edit schema.json if needed), then run "
            f"`agentframe kg approve {ctx.ws.root}` and build again"
        )


async def schema_flatten(ctx: RunContext) -> None:
    ctx.need("schema.json")
    tbox = ctx.ws.read_json("schema.json")
    ctx.ws.write_text("schema_flat.txt", flatten(tbox) + "\n")
    ctx.ws.write_json("abox_schema.json", abox_reply_schema(tbox, ctx.options.max_items))
