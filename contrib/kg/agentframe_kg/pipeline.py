"""The orchestrator: the 12 steps in order, each skipped when its outputs exist and its inputs'
digest matches the one recorded when it last finished; a precondition failure stops the run."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from .asking import ModelReplyError
from .context import RunContext, StepError
from .steps_extract import normalize_names, pass2
from .steps_graph import (
    assemble,
    export,
    no_orphan_links,
    orphan_connect,
    orphan_score,
    validate_graph,
)
from .steps_schema import (
    APPROVAL_FLAG,
    AwaitingApproval,
    human_review,
    pass1,
    schema_flatten,
    schema_validate,
)
from .steps_text import ingest, preprocess, preprocess_params

__all__ = ["STEPS", "Step", "run_pipeline", "step_names"]


@dataclass(frozen=True)
class Step:
    name: str
    run: Callable[[RunContext], Awaitable[None]]
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    #: The options (by field name) whose value changes this step's result.
    options: tuple[str, ...] = ()
    extra: Callable[[RunContext], Any] | None = None
    #: An enrichment the graph can do without: when its model replies stay invalid, this
    #: writes its outputs empty (given why) and the build goes on; the failure is recorded,
    #: so `kg status` shows it and the next build runs the step again.
    without: Callable[[RunContext, str], None] | None = None


def _review_state(ctx: RunContext) -> Any:
    return {"review": ctx.options.review, "approved": ctx.ws.path(APPROVAL_FLAG).exists()}


STEPS: tuple[Step, ...] = (
    Step(
        "preprocess",
        preprocess,
        (),
        ("docs.json", "text"),
        ("max_doc_bytes", "max_files"),
        preprocess_params,
    ),
    Step(
        "ingest",
        ingest,
        ("docs.json", "text"),
        ("chunks.jsonl", "manifest.json", "sample.jsonl"),
        ("chunk_size", "overlap", "sample_chunks"),
    ),
    Step("pass1", pass1, ("sample.jsonl",), ("schema.json", "schema.ttl")),
    Step("schema_validate", schema_validate, ("schema.json",), ("schema_report.json",)),
    Step(
        "human_review", human_review, ("schema.json",), ("schema_summary.md",), extra=_review_state
    ),
    Step(
        "schema_flatten",
        schema_flatten,
        ("schema.json",),
        ("schema_flat.txt", "abox_schema.json"),
        ("max_items",),
    ),
    Step("pass2", pass2, ("schema_flat.txt", "abox_schema.json", "chunks.jsonl"), ("abox.jsonl",)),
    Step(
        "normalize_names",
        normalize_names,
        ("abox.jsonl",),
        ("entities.json",),
        ("max_pairs",),
        # entities.json's form: canonical names per type since 2 (a build made before asks again)
        lambda _ctx: {"entities_format": 2},
    ),
    Step(
        "assemble",
        assemble,
        ("abox.jsonl", "entities.json", "schema.json"),
        ("graph_assembled.ttl",),
    ),
    Step("orphan_score", orphan_score, ("graph_assembled.ttl",), ("orphans.json",)),
    Step(
        "orphan_connect",
        orphan_connect,
        ("orphans.json", "schema_flat.txt", "graph_assembled.ttl"),
        ("orphan_links.json",),
        ("max_orphans",),
        without=no_orphan_links,
    ),
    Step(
        "validate_graph",
        validate_graph,
        ("graph_assembled.ttl", "orphan_links.json", "schema.json"),
        ("knowledge_graph.ttl", "validation_report.txt"),
    ),
    Step(
        "export",
        export,
        ("knowledge_graph.ttl",),
        (
            "export/graph.ttl",
            "export/graph.jsonld",
            "export/graph.nt",
            "export/nodes.jsonl",
            "export/edges.jsonl",
        ),
    ),
)


def step_names() -> list[str]:
    return [s.name for s in STEPS]


def _digest(ctx: RunContext, step: Step) -> str:
    params = {name: getattr(ctx.options, name) for name in step.options}
    if step.extra is not None:
        params["extra"] = step.extra(ctx)
    return ctx.ws.hash_of(list(step.inputs), params)


def _is_done(ctx: RunContext, step: Step, digest: str) -> bool:
    recorded = ctx.ws.state().get(step.name, {})
    return recorded.get("inputs") == digest and all(ctx.ws.path(o).exists() for o in step.outputs)


async def run_pipeline(ctx: RunContext, selected: list[str], forced: set[str]) -> str:
    """Run the `selected` steps in order; `forced` ones even when done. Returns how the run
    ended: "done" or "awaiting_approval"; a failing step raises StepError."""
    ctx.ws.root.mkdir(parents=True, exist_ok=True)
    for step in STEPS:
        if step.name not in selected:
            continue
        digest = _digest(ctx, step)
        if step.name not in forced and _is_done(ctx, step, digest):
            ctx.progress.event(step.name, "skipped", reason="up to date")
            continue
        ctx.ws.mark(step.name, None)
        ctx.progress.event(step.name, "start")
        try:
            await step.run(ctx)
        except AwaitingApproval as err:
            ctx.progress.event(step.name, "waiting", message=str(err))
            return "awaiting_approval"
        except (StepError, ModelReplyError, TimeoutError) as err:
            error = str(err) or "a model call timed out twice"
            ctx.cut_note(step.name)
            ctx.ws.mark_failed(step.name, error)
            if step.without is not None and not isinstance(err, StepError):
                step.without(ctx, error)
                ctx.progress.event(step.name, "failed", error=error, going_on="without it")
                continue
            ctx.progress.event(step.name, "failed", error=error)
            raise
        cut = ctx.cut_note(step.name)
        ctx.ws.mark(step.name, _digest(ctx, step), cut)
        ctx.progress.event(step.name, "done", **({"cut": cut} if cut else {}))
    return "done"
