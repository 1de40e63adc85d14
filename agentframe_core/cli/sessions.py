"""`agentframe sessions`: work on the configured store."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypeVar

import click

from .app import App, emit_json, pass_app

if TYPE_CHECKING:
    from ..protocols import Store

T = TypeVar("T")


def with_store(app: App, work: Callable[[Store], Awaitable[T]]) -> T:
    """Build just the configured store, run `work` on it, close it."""
    store = app.config().store.build()

    async def go() -> T:
        try:
            return await work(store)
        finally:
            close = getattr(store, "aclose", None)
            if close is not None:
                await close()

    return asyncio.run(go())


def _when(ns: int) -> str:
    return datetime.fromtimestamp(ns / 1e9, UTC).astimezone().strftime("%Y-%m-%d %H:%M:%S")


@click.group()
def sessions() -> None:
    """List, show and remove sessions of the configured store."""


@sessions.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for machines.")
@pass_app
def list_(app: App, as_json: bool) -> None:
    """Every session, most recently updated first."""
    infos = with_store(app, lambda store: store.sessions())
    if as_json:
        emit_json(
            [
                {
                    "id": i.id,
                    "created_at": i.created_at,
                    "updated_at": i.updated_at,
                    "entries": i.entries,
                    "title": i.title,
                }
                for i in infos
            ]
        )
        return
    if not infos:
        click.echo("no sessions")
    for info in infos:
        title = info.title or ""
        click.echo(f"{info.id}  {_when(info.updated_at)}  {info.entries:>5} entries  {title}")


@sessions.command()
@click.argument("session_id")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for machines.")
@pass_app
def show(app: App, session_id: str, as_json: bool) -> None:
    """The entries a model would see for SESSION_ID (claimed, not compacted away)."""

    async def work(store: Store) -> list[Any]:
        known = {info.id for info in await store.sessions()}
        if session_id not in known:
            raise click.ClickException(f"no session {session_id!r}")
        return await store.context(session_id)

    entries = with_store(app, work)
    if as_json:
        emit_json([e.to_dict() for e in entries])
        return
    colours = {
        "user": "green",
        "assistant": "blue",
        "tool_call": "cyan",
        "tool_result": "cyan",
        "compaction": "magenta",
        "notification": "yellow",
    }
    for entry in entries:
        label = entry.kind.value + (f" {entry.tool_name}" if entry.tool_name else "")
        click.secho(f"[{_when(entry.created_at)}] {label}", fg=colours.get(entry.kind.value))
        if entry.content:
            click.echo(entry.content)


@sessions.command()
@click.argument("session_ids", nargs=-1, required=True)
@pass_app
def rm(app: App, session_ids: tuple[str, ...]) -> None:
    """Delete sessions and all their entries."""

    async def work(store: Store) -> list[str]:
        known = {info.id for info in await store.sessions()}
        missing = [s for s in session_ids if s not in known]
        if missing:
            raise click.ClickException(f"no such session(s): {', '.join(missing)}")
        for session_id in session_ids:
            await store.delete(session_id)
        return list(session_ids)

    for session_id in with_store(app, work):
        click.echo(f"deleted {session_id}")
