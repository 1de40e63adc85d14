"""`agentframe kg build|status|approve|query|show`."""

from __future__ import annotations

import asyncio
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import click

from agentframe_core.cli import App, emit_json, handle_errors, pass_app

from .context import Options, RunContext, StepError, asker_for
from .pipeline import STEPS, run_pipeline, step_names
from .progress import Progress
from .steps_schema import APPROVAL_FLAG
from .workspace import Workspace

__all__ = ["kg"]

_MAX_QUERY = 20_000


@click.group()
def kg() -> None:
    """Documents to a validated RDF knowledge graph."""


def _out_dir(path: str) -> Path:
    out = Path(path)
    if out.exists() and (not out.is_dir() or out.is_symlink()):
        raise click.ClickException(f"{out}: not a folder")
    return out


def _selection(steps: str | None, from_step: str | None) -> tuple[list[str], set[str]]:
    names = step_names()
    chosen = [s.strip() for s in steps.split(",") if s.strip()] if steps else list(names)
    unknown = [s for s in chosen + ([from_step] if from_step else []) if s not in names]
    if unknown:
        raise click.ClickException(
            f"unknown step {', '.join(unknown)}; the steps: {', '.join(names)}"
        )
    forced = set(chosen) if steps else set()
    if from_step:
        later = names[names.index(from_step) :]
        chosen = [s for s in chosen if s in later]
        forced |= set(later)
    return chosen, forced


@kg.command()
@click.argument("docs", type=click.Path(exists=True, path_type=Path))
@click.option("--out", "out_path", required=True, help="The output folder (created; resumable).")
@click.option("--review", is_flag=True, help="Stop after the schema until `kg approve`.")
@click.option("--steps", help="Comma-separated steps to run (re-run even when done).")
@click.option("--from-step", help="Re-run from this step on.")
@click.option("--concurrency", type=click.IntRange(1, 64), default=4, show_default=True)
@click.option("--chunk-size", type=click.IntRange(200, 20_000), default=1200, show_default=True)
@click.option("--overlap", type=click.IntRange(0, 5_000), default=150, show_default=True)
@click.option("--max-tokens", type=click.IntRange(16, 32_768), default=1024, show_default=True)
@click.option(
    "--timeout",
    type=click.FloatRange(1, 3600),
    default=300.0,
    show_default=True,
    help="Seconds per model call (a timeout is retried once).",
)
@click.option(
    "--max-doc-bytes", type=click.IntRange(1, 100_000_000), default=2_000_000, show_default=True
)
@click.option("--json", "as_json", is_flag=True, help="JSON-lines progress events on stdout.")
@pass_app
def build(
    app: App,
    docs: Path,
    out_path: str,
    review: bool,
    steps: str | None,
    from_step: str | None,
    concurrency: int,
    chunk_size: int,
    overlap: int,
    max_tokens: int,
    timeout: float,
    max_doc_bytes: int,
    as_json: bool,
) -> None:
    """Build the graph of the documents under DOCS into --out."""
    with handle_errors():
        if overlap >= chunk_size:
            raise click.ClickException("--overlap must be smaller than --chunk-size")
        selected, forced = _selection(steps, from_step)
        options = Options(
            docs=docs,
            concurrency=concurrency,
            chunk_size=chunk_size,
            overlap=overlap,
            max_tokens=max_tokens,
            timeout=timeout,
            max_doc_bytes=max_doc_bytes,
            review=review,
        )
        outcome = asyncio.run(
            _build(app, _out_dir(out_path), options, Progress(as_json), selected, forced)
        )
        if outcome == "awaiting_approval":
            click.echo(f"waiting for approval: agentframe kg approve {out_path}", err=True)


async def _build(
    app: App, out: Path, options: Options, progress: Progress, selected: list[str], forced: set[str]
) -> str:
    async with AsyncExitStack() as resources:
        ws = Workspace(out)

        async def make_asker() -> Any:
            stack = await resources.enter_async_context(app.stack())
            return asker_for(stack.adapter, ws, options)

        try:
            return await run_pipeline(
                RunContext(ws, options, progress, make_asker), selected, forced
            )
        except TimeoutError:
            raise StepError(f"a model call timed out twice (--timeout {options.timeout})") from None
        except OSError as err:
            raise StepError(f"{err.filename or out}: {err.strerror or err}") from None


def _step_status(recorded: Any) -> str:
    if isinstance(recorded, dict) and "inputs" in recorded:
        cut = recorded.get("cut")
        return f"done ({cut})" if isinstance(cut, str) and cut else "done"
    if isinstance(recorded, dict) and "failed" in recorded:
        return f"failed: {recorded['failed']}"
    return "not done"


@kg.command()
@click.argument("out_path", metavar="DIR")
@click.option("--json", "as_json", is_flag=True)
def status(out_path: str, as_json: bool) -> None:
    """Which steps are done, pass2's chunks, model calls made, approval."""
    ws = Workspace(_out_dir(out_path))
    state = ws.state()
    report: dict[str, Any] = {"steps": {s.name: _step_status(state.get(s.name)) for s in STEPS}}
    try:
        total = ws.read_json("manifest.json")["chunk_count"]
        report["pass2"] = {"done": len(list(ws.path("pass2").glob("*.json"))), "total": total}
    except (OSError, ValueError, KeyError, TypeError):
        pass
    calls = ws.path("calls.jsonl")
    report["model_calls"] = len(calls.read_text().splitlines()) if calls.is_file() else 0
    report["approved"] = ws.path(APPROVAL_FLAG).exists()
    if as_json:
        emit_json(report)
        return
    for name, value in report["steps"].items():
        click.echo(f"{name:16} {value}")
    for key in ("pass2", "model_calls", "approved"):
        if key in report:
            click.echo(f"{key}: {report[key]}")


@kg.command()
@click.argument("out_path", metavar="DIR")
def approve(out_path: str) -> None:
    """Approve the schema in DIR, so that the next build goes on past human_review."""
    ws = Workspace(_out_dir(out_path))
    if not ws.path("schema.json").is_file():
        raise click.ClickException(f"no schema.json in {out_path}: build first")
    ws.write_text(APPROVAL_FLAG, "approved\n")
    click.echo(f"approved; run `agentframe kg build DOCS --out {out_path}` to go on")


def _graph(out_path: str) -> Any:
    from rdflib import Graph

    path = _out_dir(out_path) / "knowledge_graph.ttl"
    if not path.is_file():
        raise click.ClickException(f"no knowledge_graph.ttl in {out_path}: build first")
    try:
        return Graph().parse(path, format="turtle")
    except Exception as err:  # a damaged file: say which, not a traceback
        raise click.ClickException(
            f"{path}: unreadable ({type(err).__name__}: {str(err)[:200]})"
        ) from None


@kg.command()
@click.argument("out_path", metavar="DIR")
@click.argument("sparql")
@click.option("--json", "as_json", is_flag=True)
@click.option(
    "--timeout",
    type=click.FloatRange(0.1, 3600),
    default=30.0,
    show_default=True,
    help="Seconds the query may run (parsing included); past it, a named error.",
)
@click.option(
    "--max-memory",
    type=click.IntRange(16, 65_536),
    default=512,
    show_default=True,
    help="MB the query may add to the process's peak memory.",
)
@click.option(
    "--allow-service",
    is_flag=True,
    help="Allow SERVICE, which sends (parts of) the query to the server it names.",
)
def query(
    out_path: str, sparql: str, as_json: bool, timeout: float, max_memory: int, allow_service: bool
) -> None:
    """Run a SPARQL SELECT/ASK on DIR's graph (prefixes kg:, kgs:, rdfs:, rdf: predefined).

    At most 10,000 rows are produced; FROM is refused, and SERVICE unless --allow-service."""
    from .querying import QueryError, QueryLimits, run_query

    if len(sparql) > _MAX_QUERY:
        raise click.ClickException(f"the query is over {_MAX_QUERY} characters")
    graph = _graph(out_path)
    limits = QueryLimits(timeout, max_memory, allow_service)
    try:
        result = run_query(graph, sparql, limits)
    except QueryError as err:
        raise click.ClickException(str(err)) from None
    if as_json:
        emit_json(result.rows)
    else:
        for row in result.rows:
            click.echo("\t".join(row))
    if result.truncated:
        click.echo(
            f"(stopped at {limits.max_rows:,} rows: add LIMIT, or narrow the query)", err=True
        )


@kg.command()
@click.argument("out_path", metavar="DIR")
@click.argument("entity")
@click.option("--json", "as_json", is_flag=True)
def show(out_path: str, entity: str, as_json: bool) -> None:
    """An entity (by label or IRI): its types, relations and their source chunks."""
    from .describe import describe

    found = describe(_graph(out_path), entity)
    if found is None:
        raise click.ClickException(f"no entity {entity!r} in {out_path}")
    if as_json:
        emit_json(found)
        return
    click.echo(f"{found['label']} <{found['iri']}> a {', '.join(found['types'])}")
    for edge in found["relations"]:
        click.echo(
            f"  {edge['direction']} {edge['predicate']} {edge['other']}"
            f"  (from {', '.join(edge['sources'])})"
        )
