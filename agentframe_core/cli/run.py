"""`agentframe run` and `agentframe chat`: a session on the configured stack."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from .app import App, emit_json, pass_app, warn

if TYPE_CHECKING:
    from ..agent import AgentDefinition
    from ..reports import CompactionReport
    from ..session import RunResult, Session
    from ..toolbox import ToolCallRecord


def _agent(app: App, name: str | None, cwd: Path) -> AgentDefinition | None:
    if name is None:
        return None
    from ..catalog import find_agents

    config = app.config()
    return find_agents(app.host, config, cwd).get(name)


def _show_tool(record: ToolCallRecord) -> None:
    args = ", ".join(f"{k}={v!r}" for k, v in record.call.arguments.items())
    result = record.result.content
    if len(result) > 200:
        result = result[:200] + "…"
    colour = "red" if record.result.is_error else "cyan"
    click.secho(f"\n→ {record.call.name}({args}) = {result}", fg=colour, err=True)


def _show_compaction(report: CompactionReport) -> None:
    click.secho(
        f"\n⋯ compacted {report.subsumed} entries into a summary: "
        f"{report.tokens_before} → {report.tokens_after} tokens",
        fg="magenta",
        err=True,
    )


def result_json(result: RunResult) -> dict[str, Any]:
    """`agentframe run --json`: how the run ended, its reply, tool calls, tokens, compactions."""
    usage = result.usage
    return {
        "session_id": result.session_id,
        "outcome": result.outcome.value,
        "reply": result.reply,
        "turns": result.turns,
        "tool_calls": [
            {
                "id": r.call.id,
                "name": r.call.name,
                "arguments": r.call.arguments,
                "result": r.result.content,
                "is_error": r.result.is_error,
                "seconds": round(r.seconds, 6),
            }
            for r in result.tool_calls
        ],
        "usage": {
            "prompt_tokens": usage.prompt_tokens,
            "completion_tokens": usage.completion_tokens,
            "cached_tokens": usage.cached_tokens,
            "session_total_tokens": result.session_usage.total_tokens,
            "window_tokens": result.window_tokens,
        },
        "compactions": [
            {
                "summary": c.summary,
                "subsumed": c.subsumed,
                "tokens_before": c.tokens_before,
                "tokens_after": c.tokens_after,
            }
            for c in result.compactions
        ],
        "retrievals": [r.to_json() for r in result.retrievals],
    }


def _report(result: RunResult, streamed: bool) -> None:
    if not streamed and result.reply:
        click.echo(result.reply)
    elif streamed:
        click.echo()
    from ..session import Outcome

    if result.outcome is not Outcome.COMPLETED and result.outcome is not Outcome.TERMINAL_TOOL:
        warn(f"stopped: {result.outcome.value} after {result.turns} model call(s)")


@click.command()
@click.argument("prompt", nargs=-1, required=True)
@click.option("--agent", "-a", "agent_name", metavar="NAME", help="Agent definition to use.")
@click.option("--session", "-s", "session_id", metavar="ID", help="Continue this session.")
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

    result = run_prompt(
        " ".join(prompt),
        config=app.config_path(),
        profile=app.profile,
        agent=agent_name,
        session_id=session_id,
        on_token=None if as_json else on_token,
        on_tool=None if as_json else _show_tool,
        on_compaction=None if as_json else _show_compaction,
    )
    if as_json:
        emit_json(result_json(result))
    else:
        _report(result, streamed)
        click.secho(f"session: {result.session_id}", dim=True, err=True)
    if result.outcome not in (Outcome.COMPLETED, Outcome.TERMINAL_TOOL):
        sys.exit(1)


@click.command()
@click.option("--agent", "-a", "agent_name", metavar="NAME", help="Agent definition to use.")
@click.option("--session", "-s", "session_id", metavar="ID", help="Continue this session.")
@pass_app
def chat(app: App, agent_name: str | None, session_id: str | None) -> None:
    """Chat in a REPL. History lives in the store; Ctrl-C cancels the current run,
    Ctrl-D or /exit leaves."""
    from ..session import Session

    cwd = Path.cwd()
    agent = _agent(app, agent_name, cwd)
    stack = app.stack()

    async def go() -> None:
        async with stack:
            session = Session(stack, session_id, agent=agent, cwd=cwd)
            click.secho(f"session {session.id} — /exit to leave, Ctrl-C stops a run", dim=True)
            await _repl(session)

    asyncio.run(go())


async def _repl(session: Session) -> None:
    loop = asyncio.get_running_loop()
    lines: asyncio.Queue[str | None] = asyncio.Queue()
    current: asyncio.Task[Any] | None = None

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
        streamed = False

        def on_token(token: str) -> None:
            nonlocal streamed
            streamed = True
            click.echo(token, nl=False)

        current = asyncio.create_task(
            session.run(line, on_token=on_token, on_tool=_show_tool, on_compaction=_show_compaction)
        )
        try:
            result = await current
        except asyncio.CancelledError:
            click.echo()
            warn("run cancelled")
            continue
        finally:
            current = None
        _report(result, streamed)
