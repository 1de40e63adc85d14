"""`agentframe agent-mode serve|status|list|show|retry|install-skill`.

Exit codes, as the kernel's commands: 0 done, 1 an error the user can act on (no such task,
no folder), 2 a config or usage problem.
"""

from __future__ import annotations

import asyncio
import logging
import signal
from importlib import resources
from pathlib import Path
from typing import Any

import click

from agentframe_core import AgentframeError
from agentframe_core.cli import App, emit_json, pass_app

from .contract import Folder, atomic_write

__all__ = ["agent_mode"]

DEFAULT_SKILL_DEST = Path("~/.claude/skills/agentframe-agent-mode")

dir_option = click.option(
    "--dir",
    "folder",
    type=click.Path(file_okay=False, path_type=Path),
    default="intermediate",
    show_default=True,
    envvar="AGENTFRAME_AGENTFS_DIR",
    help="The folder holding agent_inbox/ and agent_outbox/ (env: AGENTFRAME_AGENTFS_DIR).",
)
json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON for machines.")


@click.group("agent-mode")
def agent_mode() -> None:
    """Agent mode: LLM requests answered through a folder. Drain it, inspect it."""


@agent_mode.command()
@click.option("--config", "config_file", metavar="FILE", help="Config whose adapter answers.")
@click.option("--profile", metavar="NAME", help="Profile of that config.")
@dir_option
@click.option("--workers", "-n", type=click.IntRange(min=1), default=1, show_default=True)
@click.option(
    "--poll-interval",
    type=click.FloatRange(min=0.001),
    default=1.0,
    show_default=True,
    help="Longest gap between two scans of the inbox (inotify wakes it sooner).",
)
@click.option(
    "--heartbeat-interval", type=click.FloatRange(min=0.01), default=1.0, show_default=True
)
@click.option(
    "--stale-after",
    type=click.FloatRange(min=0.01),
    default=10.0,
    show_default=True,
    help="Take over tasks claimed by a drainer silent for this long.",
)
@pass_app
def serve(
    app: App,
    config_file: str | None,
    profile: str | None,
    folder: Path,
    workers: int,
    poll_interval: float,
    heartbeat_interval: float,
    stale_after: float,
) -> None:
    """Answer the folder's tasks with the adapter of a config, N at a time, until SIGTERM.

    The config is read as for `agentframe run` (`--config`, else the global one, else
    ./agentframe.yaml); only its adapter is used, so its store and context may be left out.
    """
    from .drainer import Drainer, DrainerSettings

    if app.verbose:  # plugin commands may be resolved before the root's logging is set up
        logging.getLogger("agentframe_agentfs").setLevel(
            logging.DEBUG if app.verbose > 1 else logging.INFO
        )
    adapter, name = _drainer_adapter(app, config_file, profile)
    settings = DrainerSettings(workers, poll_interval, heartbeat_interval, stale_after)
    drainer = Drainer(Folder(folder), adapter, settings, adapter_name=name)
    click.echo(
        f"draining {folder} with the {name!r} adapter, {workers} at a time, as {drainer.id} "
        "(SIGTERM or Ctrl-C stops)",
        err=True,
    )
    asyncio.run(_serve(drainer))
    click.echo(f"stopped: {drainer.answered} answered, {drainer.failed} failed", err=True)


async def _serve(drainer: Any) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    try:
        await drainer.run(stop)
    finally:
        close = getattr(drainer.adapter, "aclose", None)
        if close is not None:
            await close()


def _drainer_adapter(app: App, config_file: str | None, profile: str | None) -> tuple[Any, str]:
    from agentframe_core import ConfigError, Kind, find_config_file, load_part

    file = find_config_file(config_file or app.config_file)
    # The drainer uses the adapter alone: the other parts need not be set, nor installed.
    part = load_part(app.host, Kind.ADAPTER, file, profile or app.profile)
    assert part is not None
    if part.name == "agentfs":
        message = (
            "a drainer answers with a real model, not with agentfs itself: point "
            "--config/--profile at a config whose adapter is, e.g., llamacpp"
        )
        raise ConfigError([part.issue(message, "use")])
    return part.build(), part.name


@agent_mode.command()
@dir_option
@click.option("--grace", type=float, default=10.0, show_default=True, help="Heartbeat grace.")
@json_option
def status(folder: Path, grace: float, as_json: bool) -> None:
    """Tasks by state, and the drainers serving the folder."""
    from .inspection import status as folder_status

    report = folder_status(Folder(folder), grace)
    if as_json:
        emit_json(report)
        return
    tasks = report["tasks"]
    click.echo(f"{folder}: " + ", ".join(f"{n} {state}" for state, n in tasks.items()))
    if not report["drainers"]:
        click.echo("no drainer heartbeat (a coding-assistant skill writes none)")
    for d in report["drainers"]:
        mark = click.style("alive", fg="green") if d["alive"] else click.style("stale", fg="red")
        click.echo(
            f"  {d['drainer']}  {mark}  beat {d['age']:.1f}s ago  adapter={d.get('adapter', '?')} "
            f"workers={d.get('workers', '?')} in_flight={d.get('in_flight', '?')} "
            f"answered={d.get('answered', '?')} failed={d.get('failed', '?')}"
        )


@agent_mode.command("list")
@dir_option
@click.option(
    "--state",
    "states",
    multiple=True,
    type=click.Choice(["pending", "claimed", "answered", "failed"]),
    help="Only tasks in this state (repeatable).",
)
@json_option
def list_(folder: Path, states: tuple[str, ...], as_json: bool) -> None:
    """Every task, oldest first: id, state, step, label."""
    from .inspection import list_tasks

    infos = list_tasks(Folder(folder), set(states) or None)
    if as_json:
        emit_json([info.to_dict() for info in infos])
        return
    for info in infos:
        click.echo(
            f"{info.id[:12]}  {info.state:<8}  {info.created_at:<24}  {info.step:<12}  "
            f"{info.context_label}"
        )


@agent_mode.command()
@click.argument("task_id")
@dir_option
@json_option
def show(task_id: str, folder: Path, as_json: bool) -> None:
    """A task's envelope and answer (TASK_ID may be a unique prefix)."""
    from .inspection import resolve
    from .inspection import show as show_task

    where = Folder(folder)
    report = show_task(where, resolve(where, task_id))
    if as_json:
        emit_json(report)
        return
    task = report["task"] or {}
    click.secho(f"task {report['id']}  ({report['state']})", bold=True)
    click.echo(f"file: {report['task_file']}")
    for key in ("step", "context_label", "created_at", "max_tokens", "timeout_seconds"):
        click.echo(f"{key}: {task.get(key)}")
    click.secho("--- system", bold=True)
    click.echo(task.get("system", ""))
    click.secho("--- user", bold=True)
    click.echo(task.get("user", ""))
    answer = report["answer"]
    click.secho("--- answer", bold=True)
    if answer is None:
        click.echo(f"(none yet{', claimed by ' + report['drainer'] if report['drainer'] else ''})")
    elif answer.get("error") is not None:
        click.secho(f"error: {answer['error']}", fg="red")
    else:
        click.echo(answer.get("answer", ""))
        for call in answer.get("tool_calls") or []:
            click.echo(f"tool call: {call.get('name')} {call.get('arguments')}")


@agent_mode.command()
@click.argument("task_id")
@dir_option
@json_option
def retry(task_id: str, folder: Path, as_json: bool) -> None:
    """Ask a task again: its answer is set aside (as .answer.json.rejected.<n>) and a
    drainer takes it anew."""
    from .inspection import resolve
    from .inspection import retry as retry_task

    where = Folder(folder)
    full = resolve(where, task_id)
    retry_task(where, full)
    if as_json:
        emit_json({"id": full, "retried": True})
    else:
        click.echo(f"task {full} is pending again")


@agent_mode.command()
@click.argument("task_id")
@dir_option
@click.option(
    "--file",
    "source",
    type=click.File("r", encoding="utf-8"),
    default="-",
    help="Read the answer text from this file (default: standard input).",
)
@click.option(
    "--tool-calls",
    metavar="JSON",
    help='Tool calls as a JSON list: [{"name": ..., "arguments": {...}}].',
)
@click.option("--force", is_flag=True, help="Replace an existing answer (kept as rejected).")
@json_option
def answer(
    task_id: str, folder: Path, source: Any, tool_calls: str | None, force: bool, as_json: bool
) -> None:
    """Answer a task by hand (or from a coding assistant): the answer file, then the sentinel,
    both atomically. TASK_ID may be a unique prefix. An answered task is refused unless
    `--force`, which keeps the old answer beside it (`.rejected.N`)."""
    import json

    from .contract import Answer, decode_tool_calls, set_aside, write_answer
    from .inspection import resolve

    where = Folder(folder)
    full = resolve(where, task_id)
    paths = where.paths(full)
    if not paths.task.exists():
        raise AgentframeError(f"no task envelope {paths.task}: nothing to answer")
    try:
        calls = decode_tool_calls(json.loads(tool_calls)) if tool_calls else ()
    except ValueError as err:
        raise click.BadParameter(str(err), param_hint="--tool-calls") from err
    if paths.answer.exists() or paths.done.exists():
        if not force:
            raise AgentframeError(
                f"task {full} is already answered ({paths.answer}); pass --force to replace "
                "the answer (the old one is kept beside it)"
            )
        set_aside(paths)
    write_answer(paths, Answer(source.read(), calls))
    paths.claim.unlink(missing_ok=True)
    if as_json:
        emit_json({"id": full, "answer_file": str(paths.answer)})
    else:
        click.echo(f"answered {full}")


@agent_mode.command("install-skill")
@click.option(
    "--dest",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help=f"The skill's folder (default: {DEFAULT_SKILL_DEST}/).",
)
@click.option("--force", is_flag=True, help="Replace a SKILL.md that differs.")
@json_option
def install_skill(dest: Path | None, force: bool, as_json: bool) -> None:
    """Install the coding-assistant skill that drains the inbox with subagents."""
    source = resources.files("agentframe_agentfs").joinpath("skill/SKILL.md").read_bytes()
    target = (dest or DEFAULT_SKILL_DEST).expanduser() / "SKILL.md"
    if target.exists() and target.read_bytes() != source and not force:
        raise AgentframeError(f"{target} exists and differs; pass --force to replace it")
    unchanged = target.exists() and target.read_bytes() == source
    target.parent.mkdir(parents=True, exist_ok=True)
    if not unchanged:
        atomic_write(target, source)
    if as_json:
        emit_json({"installed": str(target), "changed": not unchanged})
    else:
        click.echo(f"{'up to date' if unchanged else 'installed'}: {target}")
