"""`agentframe sessions`: work on the configured store."""

from __future__ import annotations

import asyncio
import io
import re
import sys
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

import click

from ..support.lineage import child_pointers, parent_link
from .app import App, emit_json, pass_app, utf8_argument

if TYPE_CHECKING:
    from ..contract.model import SessionInfo
    from ..contract.protocols import Store, StoredEntry

T = TypeVar("T")


def with_store(app: App, work: Callable[[Store], Awaitable[T]]) -> T:
    """Build just the configured store, run `work` on it, close it."""
    from ..contract.protocols import Closeable

    store = app.config().store.build()

    async def go() -> T:
        try:
            return await work(store)
        finally:
            if isinstance(store, Closeable):
                await store.aclose()

    return asyncio.run(go())


def _when(ns: int) -> str:
    return datetime.fromtimestamp(ns / 1e9, UTC).astimezone().strftime("%Y-%m-%d %H:%M:%S")


@click.group()
def sessions() -> None:
    """List, show, remove, export, import and prune sessions of the configured store."""


@sessions.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for machines.")
@click.option(
    "--children", is_flag=True, help="Only sessions started by another (sub-agents), with it."
)
@click.option("--all", "every", is_flag=True, help="Plugins' records too (ids starting with `~`).")
@pass_app
def list_(app: App, as_json: bool, children: bool, every: bool) -> None:
    """Every conversation, most recently updated first (with --all, plugins' records too)."""

    async def work(store: Store) -> list[tuple[SessionInfo, dict[str, str] | None]]:
        infos = [info for info in await store.sessions() if every or not info.is_record]
        if not children:
            return [(info, None) for info in infos]
        linked = [(info, parent_link(await store.context(info.id))) for info in infos]
        return [(info, link) for info, link in linked if link is not None]

    found = with_store(app, work)
    if as_json:
        emit_json([_info_json(info, link) for info, link in found])
        return
    if not found:
        click.echo("no child sessions" if children else "no sessions")
    for info, link in found:
        title = info.title or ""
        line = f"{info.id}  {_when(info.updated_at)}  {info.entries:>5} entries  {title}"
        if link is not None:
            line += f"  <- {link['parent']} ({link.get('agent', '?')})"
        click.echo(line)


def _info_json(info: SessionInfo, link: dict[str, str] | None) -> dict[str, Any]:
    found: dict[str, Any] = {
        "id": info.id,
        "created_at": info.created_at,
        "updated_at": info.updated_at,
        "entries": info.entries,
        "title": info.title,
    }
    if link is not None:
        found["parent"] = link
    return found


def find_session(ids: list[str], wanted: str) -> str:
    """The one id of `ids` that is `wanted` or starts with it (ids as the store lists them,
    most recently updated first); a ClickException naming the matches otherwise."""
    if wanted in ids:
        return wanted
    matches = [i for i in ids if i.startswith(wanted)] if wanted else []
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise click.ClickException(f"no session {wanted!r}")
    shown = ", ".join(matches[:10]) + (
        f" and {len(matches) - 10} more" if len(matches) > 10 else ""
    )
    raise click.ClickException(f"{wanted!r} is the start of {len(matches)} sessions: {shown}")


def last_session(app: App) -> str:
    """The id of the store's most recently updated conversation (`--last`)."""
    return with_store(app, _last)


async def _last(store: Store) -> str:
    """The newest conversation: never a plugin's record, however recently it was written."""
    found = next((info.id for info in await store.sessions() if not info.is_record), None)
    if found is None:
        raise click.ClickException("--last: the store holds no session yet")
    return found


last_option = click.option(
    "--last", is_flag=True, help="The most recently updated session of the store."
)


@sessions.command()
@click.argument("session_id", required=False, callback=utf8_argument)
@last_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON for machines.")
@pass_app
def show(app: App, session_id: str | None, last: bool, as_json: bool) -> None:
    """The entries a model would see for SESSION_ID (claimed, not compacted away). A unique
    start of an id will do; --last shows the most recently updated session."""
    if (session_id is None) == (not last):
        raise click.UsageError("give a SESSION_ID or --last (not both)")

    async def work(store: Store) -> tuple[str, list[Any]]:
        if last:
            found = await _last(store)
        else:
            found = find_session([i.id for i in await store.sessions()], session_id or "")
        return found, await store.context(found)

    shown_id, entries = with_store(app, work)
    if as_json:
        emit_json([e.to_dict() for e in entries])
        return
    click.secho(f"session {shown_id}", dim=True, err=True)
    colours = {
        "user": "green",
        "assistant": "blue",
        "tool_call": "cyan",
        "tool_result": "cyan",
        "compaction": "magenta",
        "notification": "yellow",
    }
    for entry in entries:
        pointers = child_pointers(entry)
        if entry.kind.value == "assistant" and not entry.content and not pointers:
            continue  # the reply only asked for tools: its tool_call entries follow
        label = entry.kind.value + (f" {entry.tool_name}" if entry.tool_name else "")
        click.secho(f"[{_when(entry.created_at)}] {label}", fg=colours.get(entry.kind.value))
        if entry.content:
            click.echo(entry.content)
        for child in pointers:
            status = f", {child['status']}" if isinstance(child.get("status"), str) else ""
            click.secho(
                f"  ↳ child session {child['session_id']} ({child.get('agent', '?')}{status}): "
                f"agentframe sessions show {child['session_id']}",
                dim=True,
            )


@sessions.command()
@click.argument("session_ids", nargs=-1, required=True, callback=utf8_argument)
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


# -- export, import, prune: generic over the optional store protocols ------------------------


def _capable(store: Store, protocol: type, what: str, lacks: str | None = None) -> None:
    if not isinstance(store, protocol):
        lacks = lacks or f"it does not implement {protocol.__name__}"
        raise click.ClickException(
            f"the configured store ({type(store).__name__}) cannot {what}: {lacks}"
        )


@sessions.command()
@click.argument("session_ids", nargs=-1, callback=utf8_argument)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    help="Write to FILE (replaced only once the export is complete) instead of stdout.",
)
@pass_app
def export(app: App, session_ids: tuple[str, ...], output: Path | None) -> None:
    """Write sessions (all of them, or SESSION_IDS) as JSON Lines: every entry, with its
    pending and subsumed state, in order. `agentframe sessions import` reads it back."""
    from ..contract.protocols import ExportableStore
    from ..support.transfer import dump_line

    async def work(store: Store) -> list[tuple[str, list[StoredEntry]]]:
        _capable(store, ExportableStore, "export sessions")
        assert isinstance(store, ExportableStore)
        known = [info.id for info in await store.sessions()]
        missing = [s for s in session_ids if s not in known]
        if missing:
            raise click.ClickException(f"no such session(s): {', '.join(missing)}")
        wanted = list(dict.fromkeys(session_ids)) or known[::-1]  # all: oldest first
        return [(session_id, await store.history(session_id)) for session_id in wanted]

    exported = with_store(app, work)
    lines = [  # all of them before writing any: an entry that cannot be written stops it all
        dump_line(session_id, record) for session_id, records in exported for record in records
    ]
    if output is None:
        for line in lines:
            click.echo(line)
        return
    from ..support.files import atomic_write

    output.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(line + "\n" for line in lines)
    atomic_write(output, text)
    click.echo(
        f"wrote {len(lines)} entries of {len(exported)} session(s), {len(text.encode())} bytes, "
        f"to {output}",
        err=True,
    )


@sessions.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, allow_dash=True))
@click.option("--replace", is_flag=True, help="Overwrite sessions that already exist.")
@pass_app
def import_(app: App, file: str, replace: bool) -> None:
    """Recreate the sessions of a JSON Lines export (FILE, or - for stdin), exactly. The
    whole file is checked first: a bad line is reported and nothing is imported."""
    from ..contract.protocols import ExportableStore
    from ..support.files import read_text_file, read_text_stream
    from ..support.transfer import IMPORT_LIMIT, read_lines

    if file == "-":
        text = read_text_stream(sys.stdin.buffer, IMPORT_LIMIT, "session export")
    else:
        text = read_text_file(file, IMPORT_LIMIT, "session export")
    found = read_lines(io.StringIO(text, newline=None), file if file != "-" else "<stdin>")

    async def work(store: Store) -> None:
        _capable(store, ExportableStore, "import sessions")
        assert isinstance(store, ExportableStore)
        existing = {info.id for info in await store.sessions()} & found.keys()
        if existing and not replace:
            raise click.ClickException(
                f"already in the store: {', '.join(sorted(existing))} "
                "(--replace overwrites them); nothing was imported"
            )
        for session_id, records in found.items():
            await store.restore(session_id, records)

    with_store(app, work)
    entries = sum(len(records) for records in found.values())
    click.echo(f"imported {len(found)} session(s), {entries} entries, from {file}")


_AGE = re.compile(r"(\d+)\s*([smhdw])")
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def _age(_ctx: click.Context, _param: click.Parameter, value: str | None) -> timedelta | None:
    if value is None:
        return None
    match = _AGE.fullmatch(value.strip())
    if match is None:
        raise click.BadParameter(f"{value!r} is not an age like 30d, 12h, 90m, 45s or 2w")
    return timedelta(**{_UNITS[match[2]]: int(match[1])})


def _doomed(
    newest_first: list[SessionInfo], older_than: timedelta | None, keep_last: int | None
) -> list[str]:
    """What `PrunableStore.prune` deletes by its contract, for `--dry-run`."""
    from ..support.retention import sessions_to_prune

    pairs = [(info.id, info.updated_at) for info in newest_first]
    return sessions_to_prune(pairs, older_than=older_than, keep_last=keep_last)


@runtime_checkable
class _Vacuumable(Protocol):
    async def vacuum(self) -> None: ...


@sessions.command()
@click.option(
    "--older-than",
    metavar="AGE",
    callback=_age,
    help="Delete sessions not updated for AGE: 30d, 12h, 90m, 45s, 2w.",
)
@click.option(
    "--keep-last",
    type=click.IntRange(min=0),
    metavar="N",
    help="Delete all but the N most recently updated sessions.",
)
@click.option("--vacuum", is_flag=True, help="Then give the freed space back to the disk.")
@click.option("--dry-run", is_flag=True, help="Only list what would be deleted.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for machines.")
@pass_app
def prune(
    app: App,
    older_than: timedelta | None,
    keep_last: int | None,
    vacuum: bool,
    dry_run: bool,
    as_json: bool,
) -> None:
    """Delete old sessions. With both rules, a session either rule selects is deleted: keep at
    most N sessions, none older than AGE. Plugins' records (ids starting with `~`) are not
    counted by --keep-last; they go once older than every session kept, or than AGE."""
    from ..contract.protocols import PrunableStore

    if older_than is None and keep_last is None and not vacuum:
        raise click.UsageError("say what to prune: --older-than AGE and/or --keep-last N")

    async def work(store: Store) -> list[str]:
        rules = older_than is not None or keep_last is not None
        if rules:
            _capable(store, PrunableStore, "prune sessions")
        if vacuum:
            _capable(store, _Vacuumable, "vacuum", "it has no vacuum() method")
        if dry_run:
            return _doomed(await store.sessions(), older_than, keep_last) if rules else []
        deleted: list[str] = []
        if rules:
            assert isinstance(store, PrunableStore)
            deleted = await store.prune(older_than=older_than, keep_last=keep_last)
        if vacuum:
            assert isinstance(store, _Vacuumable)
            await store.vacuum()
        return deleted

    deleted = with_store(app, work)
    vacuumed = vacuum and not dry_run
    if as_json:
        emit_json({"deleted": deleted, "dry_run": dry_run, "vacuumed": vacuumed})
        return
    verb = "would delete" if dry_run else "deleted"
    for session_id in deleted:
        click.echo(f"{verb} {session_id}")
    click.echo(f"{verb} {len(deleted)} session(s)" + (", vacuumed" if vacuumed else ""))
