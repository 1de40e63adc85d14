"""`agentframe memory list|show|add|rm|search|reindex`: the memories of the configured scope.

The folder and scope come from the `memory-bm25` block of the config in force (retriever or
tools), else the defaults; `--scope` overrides the scope.
"""

from __future__ import annotations

import re
from typing import Any

import click

from agentframe_core.cli import App, emit_json, handle_errors, pass_app, warn

from .options import SCOPE_PATTERN, MemoryOptions

NAME = "memory-bm25"


def _configured(app: App) -> MemoryOptions | None:
    """The options of the config's `memory-bm25` block, None when it has none."""
    # Only the retrievers and tools: these commands need no model and no store.
    parts = [part for kind_parts in app.part_lists().values() for part in kind_parts]
    options = next((p.options for p in parts if p.name == NAME), None)
    return options if isinstance(options, MemoryOptions) else None


def _options(app: App, scope: str | None) -> MemoryOptions:
    options = _configured(app) or MemoryOptions()
    if not scope:
        return options
    if not re.match(SCOPE_PATTERN, scope):
        raise click.BadParameter(f"{scope!r} is not a scope name (letters, digits, . _ -)")
    return options.model_copy(update={"scope": scope})


def _bank(app: App, scope: str | None) -> Any:
    from .retriever import open_bank

    return open_bank(_options(app, scope))


def _report_problems(bank: Any) -> None:
    for path, why in sorted(bank.problems.items()):
        warn(f"skipped {path}: {why}")


scope_option = click.option("--scope", help="Another scope than the configured one.")
json_option = click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")


@click.group()
def memory() -> None:
    """Long-term memories (the memory-bm25 plugin)."""


@memory.command("list")
@scope_option
@json_option
@pass_app
def list_(app: App, scope: str | None, as_json: bool) -> None:
    """Every memory of the scope, and the files that could not be read."""
    with handle_errors():
        bank = _bank(app, scope)
        found = bank.all()
        if as_json:
            emit_json(
                {
                    "folder": str(bank.folder),
                    "memories": [
                        {k: v for k, v in m.to_json().items() if k != "content"} for m in found
                    ],
                    "problems": bank.problems,
                }
            )
            return
        for m in found:
            tags = f"  [{', '.join(m.tags)}]" if m.tags else ""
            click.echo(f"{m.id}  {m.title}{tags}")
        _report_problems(bank)
        if not found:
            _say_where(app, bank)


def _say_where(app: App, bank: Any) -> None:
    """Where an empty listing looked, on stderr: a config without a memory block reads the
    default folder, which is rarely where the memories are."""
    source = app.config_path() or "the embedded default config"
    if _configured(app) is None:
        warn(f"{source} has no {NAME} block (retrievers or tools): looked in the default folder")
    click.echo(f"no memories in {bank.folder}", err=True)


@memory.command()
@click.argument("memory_id")
@scope_option
@json_option
@pass_app
def show(app: App, memory_id: str, scope: str | None, as_json: bool) -> None:
    """One memory, whole."""
    from .bank import UnknownMemoryError
    from .files import BadMemoryFile, render_memory

    with handle_errors():
        try:
            m = _bank(app, scope).get(memory_id)
        except (UnknownMemoryError, BadMemoryFile) as err:
            raise click.ClickException(str(err.args[0] if err.args else err)) from None
        if as_json:
            emit_json(m.to_json())
        else:
            click.echo(render_memory(m), nl=False)


@memory.command()
@click.argument("title")
@click.argument("content")
@click.option("--category", default="general", show_default=True)
@click.option("--tag", "tags", multiple=True, help="A tag (repeatable).")
@scope_option
@json_option
@pass_app
def add(
    app: App,
    title: str,
    content: str,
    category: str,
    tags: tuple[str, ...],
    scope: str | None,
    as_json: bool,
) -> None:
    """Save a memory (a near-duplicate updates the old one)."""
    with handle_errors():
        m, new = _bank(app, scope).remember(title, content, category, tags)
        if as_json:
            emit_json({"id": m.id, "created": new, "path": str(m.path)})
        else:
            click.echo(f"{'saved' if new else 'updated'} {m.id}")


@memory.command()
@click.argument("memory_id")
@scope_option
@json_option
@pass_app
def rm(app: App, memory_id: str, scope: str | None, as_json: bool) -> None:
    """Delete a memory."""
    from .bank import UnknownMemoryError

    with handle_errors():
        try:
            m = _bank(app, scope).forget(memory_id)
        except UnknownMemoryError as err:
            raise click.ClickException(str(err.args[0])) from None
        if as_json:
            emit_json({"id": m.id, "removed": True})
        else:
            click.echo(f"removed {m.id}")


@memory.command()
@click.argument("query")
@click.option("-k", "limit", default=8, show_default=True, type=click.IntRange(1, 100))
@scope_option
@json_option
@pass_app
def search(app: App, query: str, limit: int, scope: str | None, as_json: bool) -> None:
    """BM25 search (stage 1 only: no model is asked)."""
    with handle_errors():
        bank = _bank(app, scope)
        hits = []
        for memory_id, score in bank.search(query, limit):
            try:
                hits.append((bank.get(memory_id), score))
            except Exception as err:
                warn(f"skipped {memory_id}: {err}")
        if as_json:
            emit_json(
                [
                    {"id": m.id, "title": m.title, "score": round(s, 4), "line": _first_line(m)}
                    for m, s in hits
                ]
            )
            return
        for m, s in hits:
            click.echo(f"{s:7.3f}  {m.id}  {m.title}: {_first_line(m)}")


def _first_line(memory: Any, width: int = 100) -> str:
    """The first non-blank line of a memory's text, cut to `width` characters."""
    line = next((ln.strip() for ln in memory.content.splitlines() if ln.strip()), "")
    return line if len(line) <= width else line[: width - 1] + "…"


@memory.command()
@scope_option
@json_option
@pass_app
def reindex(app: App, scope: str | None, as_json: bool) -> None:
    """Read every memory file again and rebuild the index from them."""
    with handle_errors():
        bank = _bank(app, scope)
        stats = bank.reindex()
        if as_json:
            emit_json({**stats, "problems": bank.problems})
            return
        click.echo(", ".join(f"{k} {v}" for k, v in stats.items()))
        _report_problems(bank)
