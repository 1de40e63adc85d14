"""Steps 3-6: pass1 (schema induction), schema_validate, human_review, schema_flatten."""

from __future__ import annotations

from typing import Any

from .context import RunContext, StepError
from .steps_text import read_chunks
from .tbox import TBOX_REPLY_SCHEMA, abox_reply_schema, check_tbox, flatten, tbox_graph

__all__ = ["APPROVAL_FLAG", "human_review", "pass1", "schema_flatten", "schema_validate"]

APPROVAL_FLAG = "schema_approved.flag"

PASS1_SYSTEM = (
    "You design a small ontology for a knowledge graph. Reply with JSON only: `classes` "
    '(UpperCamelCase `name`, `parent` the name of a declared class or "") and `properties` '
    "(lowerCamelCase `name`, `domain` and `range` each a declared class name)."
)


async def pass1(ctx: RunContext) -> None:
    sample = read_chunks(ctx, "sample.jsonl")
    excerpt = "\n\n".join(f"[{c['id']}]\n{c['text']}" for c in sample)[:12_000]
    prompt = f"Propose the classes and relations found in these excerpts:\n\n{excerpt}"
    asker = await ctx.asker()
    tbox = await asker.ask_json("pass1", PASS1_SYSTEM, prompt, TBOX_REPLY_SCHEMA, check_tbox)
    tbox = _canonical(tbox)
    ctx.ws.write_json("schema.json", tbox)
    ctx.ws.write_text("schema.ttl", tbox_graph(tbox).serialize(format="turtle"))


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
