"""`agentframe run` and `agentframe chat`: a session on the configured stack."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from .app import App, emit_json, pass_app, utf8_argument, utf8_problem, warn

log = logging.getLogger("agentframe.cli")

if TYPE_CHECKING:
    from ..agent import AgentDefinition
    from ..session import Session, TurnResult
    from ..toolbox import ToolCallRecord


def _announce_config(app: App) -> None:
    """Say which config runs: a project's ./agentframe.yaml is read without being asked for,
    and it chooses the tools the model gets (a cloned repository can hand it a shell)."""
    path = app.config_path()
    if path is None:
        where = "embedded default"
    elif app.config_file:
        where = f"{path} (from --config or $AGENTFRAME_CONFIG)"
    else:
        where = f"{path} (found in the working directory)"
    log.info("config: %s", where)
    click.secho(f"config: {where}", dim=True, err=True)


def _agent(app: App, name: str | None, cwd: Path) -> AgentDefinition | None:
    if name is None:
        return None
    from ..agents import find_agents

    config = app.config()
    return find_agents(app.host, config, cwd).get(name)


def _show_tool(record: ToolCallRecord) -> None:
    args = ", ".join(f"{k}={v!r}" for k, v in record.call.arguments.items())
    result = record.result.content
    if len(result) > 200:
        result = result[:200] + "…"
    colour = "red" if record.result.is_error else "cyan"
    click.secho(f"\n→ {record.call.name}({args}) = {result}", fg=colour, err=True)


def _report(result: TurnResult, streamed: bool) -> None:
    if not streamed and result.reply:
        click.echo(result.reply)
    elif streamed:
        click.echo()
    from ..session import Outcome

    if result.outcome is not Outcome.COMPLETED and result.outcome is not Outcome.TERMINAL_TOOL:
        warn(f"stopped: {result.outcome.value} after {result.turns} model call(s)")


@click.command()
@click.argument("prompt", nargs=-1, required=True, callback=utf8_argument)
@click.option(
    "--agent",
    "-a",
    "agent_name",
    metavar="NAME",
    callback=utf8_argument,
    help="Agent definition to use.",
)
@click.option(
    "--session",
    "-s",
    "session_id",
    metavar="ID",
    callback=utf8_argument,
    help="Continue this session.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object when done.")
@pass_app
def run(
    app: App, prompt: tuple[str, ...], agent_name: str | None, session_id: str | None, as_json: bool
) -> None:
    """Answer PROMPT to completion, streaming tokens and showing each tool call.

    Exits with 1 when the run stopped early (max turns, repetition, ...).
    """
    from ..facade import run as run_prompt
    from ..session import Outcome

    streamed = False

    def on_token(token: str) -> None:
        nonlocal streamed
        streamed = True
        click.echo(token, nl=False)

    _announce_config(app)
    result = run_prompt(
        " ".join(prompt),
        config=app.config_path(),
        profile=app.profile,
        agent=agent_name,
        session_id=session_id,
        on_token=None if as_json else on_token,
        on_tool=None if as_json else _show_tool,
    )
    if as_json:
        emit_json(result.to_json())
    else:
        _report(result, streamed)
        click.secho(f"session: {result.session_id}", dim=True, err=True)
    if result.outcome not in (Outcome.COMPLETED, Outcome.TERMINAL_TOOL):
        sys.exit(1)


@click.command()
@click.option(
    "--agent",
    "-a",
    "agent_name",
    metavar="NAME",
    callback=utf8_argument,
    help="Agent definition to use.",
)
@click.option(
    "--session",
    "-s",
    "session_id",
    metavar="ID",
    callback=utf8_argument,
    help="Continue this session.",
)
@pass_app
def chat(app: App, agent_name: str | None, session_id: str | None) -> None:
    """Chat in a REPL. History lives in the store; Ctrl-C cancels the current turn,
    Ctrl-D or /exit leaves."""
    from ..session import Session

    cwd = Path.cwd()
    _announce_config(app)
    agent = _agent(app, agent_name, cwd)
    stack = app.stack()

    async def go() -> None:
        async with stack:
            session = Session(stack, session_id, agent=agent, cwd=cwd)
            click.secho(f"session {session.id} — /exit to leave, Ctrl-C stops a turn", dim=True)
            await _repl(session)

    asyncio.run(go())


async def _repl(session: Session) -> None:
    loop = asyncio.get_running_loop()
    lines: asyncio.Queue[str | None] = asyncio.Queue()
    current: asyncio.Task[Any] | None = None

    with contextlib.suppress(AttributeError, ValueError):  # bad bytes reach us, not a crash
        sys.stdin.reconfigure(errors="surrogateescape")  # type: ignore[union-attr]

    def read() -> None:  # a daemon thread, so a pending input() never blocks exit
        while True:
            try:
                line = input()
            except (EOFError, KeyboardInterrupt):
                loop.call_soon_threadsafe(lines.put_nowait, None)
                return
            loop.call_soon_threadsafe(lines.put_nowait, line)

    def interrupt() -> None:
        if current is not None and not current.done():
            current.cancel()
        else:
            lines.put_nowait(None)

    with contextlib.suppress(NotImplementedError):
        loop.add_signal_handler(signal.SIGINT, interrupt)
    threading.Thread(target=read, daemon=True).start()
    while True:
        click.secho("you> ", fg="green", bold=True, nl=False)
        line = await lines.get()
        if line is None or line.strip() in ("/exit", "/quit"):
            click.echo()
            return
        if not line.strip():
            continue
        problem = utf8_problem(line)
        if problem:
            warn(f"line ignored: {problem}")
            continue
        streamed = False

        def on_token(token: str) -> None:
            nonlocal streamed
            streamed = True
            click.echo(token, nl=False)

        current = asyncio.create_task(session.run(line, on_token=on_token, on_tool=_show_tool))
        try:
            result = await current
        except asyncio.CancelledError:
            click.echo()
            warn("turn cancelled")
            continue
        finally:
            current = None
        _report(result, streamed)
