"""`agentframe run` and `agentframe chat`: a session on the configured stack."""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ..contract.errors import AgentframeError
from .app import (
    EXIT_CONFIG,
    EXIT_ERROR,
    App,
    emit_json,
    pass_app,
    utf8_argument,
    utf8_problem,
    warn,
)
from .asking import TerminalAsker, shown, stdin_lines

log = logging.getLogger("agentframe.cli")

if TYPE_CHECKING:
    from ..contract.configtypes import Config
    from ..contract.definition import AgentDefinition
    from ..contract.reports import CompactionReport
    from ..engine.output import OutputSpec
    from ..engine.session import RunResult, Session
    from ..engine.toolbox import ToolCallRecord
    from .slash import ChatCommands, ChatStep

log = logging.getLogger("agentframe.chat")

#: Exit code of a run stopped by Ctrl-C (128 + SIGINT, as shells report it).
EXIT_INTERRUPTED = 130


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
    from ..assembly.catalog import find_agents

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


def _show_event(kind: str, data: dict[str, Any]) -> None:
    """One line per sub-agent, when it ends, per MCP progress notification and per MCP
    resource a prompt mentions (other progress events are for embedders)."""
    if kind == "mcp_resource":
        click.secho(
            f"↳ read @{shown(str(data.get('server')))}:{shown(str(data.get('uri')))[:200]} "
            f"({data.get('chars')} characters)",
            fg="cyan",
            err=True,
        )
        return
    if kind == "mcp_progress":
        total = data.get("total")
        done = f"{data.get('progress')}/{total}" if total else f"{data.get('progress')}"
        message = shown(str(data.get("message") or ""))[:200]
        click.secho(
            f"↳ {shown(str(data.get('server')))}/{shown(str(data.get('tool')))}: {done} "
            f"{message}".rstrip(),
            fg="cyan",
            err=True,
        )
        return
    if kind != "subagent.finished":
        return
    usage = data.get("usage") or {}
    tokens = sum(int(usage.get(k, 0)) for k in ("prompt_tokens", "completion_tokens"))
    colour = "blue" if data.get("status") == "done" else "red"
    click.secho(
        f"\n↳ sub-agent {data.get('agent')}: {data.get('status')} in "
        f"{float(data.get('seconds', 0)):.1f} s, {tokens} tokens "
        f"(session {data.get('session_id')})",
        fg=colour,
        err=True,
    )


def result_json(result: RunResult, config: Config | None = None) -> dict[str, Any]:
    """`agentframe run --json`: how the run ended, its reply, tool calls, tokens, compactions."""
    usage = result.usage
    return {
        "session_id": result.session_id,
        "run_id": result.run_id,
        "outcome": result.outcome.value,
        "reply": result.reply,
        **({"output": result.output} if result.output is not None else {}),
        **({"output_errors": result.output_errors} if result.output_errors else {}),
        "truncated": _cut(result, config),
        "over_budget": (
            dict(zip(("prompt_tokens", "budget_tokens"), result.over_budget, strict=True))
            if result.over_budget
            else None
        ),
        "turns": result.turns,
        "coalesced": result.coalesced,
        "tool_calls": [r.to_json() for r in result.tool_calls],
        "usage": {
            **usage.to_dict(),
            "session_total_tokens": result.session_usage.total_tokens,
            "window_tokens": result.window_tokens,
            "children": result.children_usage.to_dict(),
            "total": result.total_usage.to_dict(),
        },
        "compactions": [c.to_json() for c in result.compactions],
        "retrievals": [r.to_json() for r in result.retrievals],
    }


def _cut(result: RunResult, config: Config | None) -> dict[str, Any] | None:
    """The token limit the last reply was cut at: its tokens, the adapter's `max_tokens`
    (the setting to raise) when it has one, and whether it is set."""
    if result.cut_tokens is None:
        return None
    options = config.adapter.options if config is not None else None
    fields = getattr(type(options), "model_fields", {})
    setting = f"{config.adapter.path}.max_tokens" if config and "max_tokens" in fields else None
    limit = getattr(options, "max_tokens", None) if setting else None
    return {"tokens": result.cut_tokens, "limit": limit, "setting": setting}


def _cut_message(cut: dict[str, Any], config: Config | None) -> str:
    where = f" in {config.adapter.file}" if config and config.adapter.file else ""
    counted = f" after {cut['tokens']} tokens" if cut["tokens"] else ""
    if cut["setting"] and cut["limit"]:
        how = f"the limit is {cut['limit']} tokens: raise `{cut['setting']}`{where}"
    elif cut["setting"]:
        how = f"`{cut['setting']}` is not set, so the backend's own limit applies: set it{where}"
    else:
        how = "raise the adapter's reply token limit"
    return f"the reply was cut at the model's token limit{counted} ({how})"


def _report(result: RunResult, streamed: bool, config: Config | None = None) -> None:
    if not streamed and result.reply:
        click.echo(result.reply)
    elif streamed:
        click.echo()
    from ..engine.session import Outcome

    cut = _cut(result, config)
    if cut is not None:
        warn(_cut_message(cut, config))
    if result.outcome is not Outcome.COMPLETED and result.outcome is not Outcome.TERMINAL_TOOL:
        warn(f"stopped: {result.outcome.value} after {result.turns} model call(s)")
    for error in result.output_errors:
        warn(f"not valid against the output schema: {error}")


_agent_option = click.option(
    "--agent",
    "-a",
    "agent_name",
    metavar="NAME",
    callback=utf8_argument,
    help="Agent definition to use.",
)
_session_option = click.option(
    "--session",
    "-s",
    "session_id",
    metavar="ID",
    callback=utf8_argument,
    help="Continue this session.",
)
_last_option = click.option(
    "--last", is_flag=True, help="Continue the most recently updated session of the store."
)


def _pick_session(app: App, session_id: str | None, last: bool) -> str | None:
    """--session, or with --last the store's most recently updated session."""
    if not last:
        return session_id
    if session_id is not None:
        raise click.UsageError("give --session or --last, not both")
    from .sessions import last_session

    return last_session(app)


_show_prompt_option = click.option(
    "--show-prompt",
    is_flag=True,
    help="Print (to stderr) every message and tool schema each model call is sent, with "
    "token counts.",
)


def _show_prompts() -> None:
    """Each model call's request on stderr, exactly as sent (secrets masked)."""
    from ..engine.requestview import PROMPT_LOG
    from ..support.redact import RedactingFormatter

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(RedactingFormatter("%(message)s"))
    PROMPT_LOG.addHandler(handler)
    PROMPT_LOG.setLevel(logging.DEBUG)
    PROMPT_LOG.propagate = False  # once, even with -vv


@click.command()
@click.argument("prompt", nargs=-1, required=True, callback=utf8_argument)
@_agent_option
@_session_option
@_last_option
@click.option("--new", is_flag=True, help="The --session is a new one (no notice on stderr).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object when done.")
@click.option(
    "--output-schema",
    "output_schema",
    type=click.Path(dir_okay=False, path_type=Path),
    help="A JSON Schema file: the answer must match it; prints the validated JSON (exit 1 "
    "when it never did: outcome invalid_output).",
)
@_show_prompt_option
@pass_app
def run(
    app: App,
    prompt: tuple[str, ...],
    agent_name: str | None,
    session_id: str | None,
    last: bool,
    new: bool,
    as_json: bool,
    output_schema: Path | None,
    show_prompt: bool,
) -> None:
    """Answer PROMPT to completion, streaming tokens and showing each tool call.

    A --session the store does not hold is started, with a notice on stderr (a typo would
    otherwise go unseen) unless --new says it is meant. With --json, errors are a JSON object
    {"error": {"type", "message"}} too. Exits with 1 when the run failed or stopped early
    (max turns, repetition, ...), 2 on a config error, 130 when interrupted (Ctrl-C).
    """
    from ..assembly.facade import run as run_prompt
    from .slash import expand_prompt

    tokens = _Tokens()
    _announce_config(app)
    if show_prompt:
        _show_prompts()
    with _json_errors(as_json):
        output = _output_spec(output_schema) if output_schema is not None else None
        text, agent = expand_prompt(app, " ".join(prompt), agent_name, Path.cwd())
        result = run_prompt(
            text,
            config=app.config_path(),
            profile=app.profile,
            agent=agent,
            session_id=_pick_session(app, session_id, last),
            on_token=None if as_json or output else tokens,  # typed: printed once, valid
            on_tool=None if as_json else _show_tool,
            on_compaction=None if as_json else _show_compaction,
            on_event=None if as_json else _show_event,
            on_new_session=None if new else _notice_new_session,
            on_question=TerminalAsker(stdin_lines()) if sys.stdin.isatty() else None,
            output=output,
        )
    _finish(app, result, tokens.streamed, as_json)


class _Tokens:
    """Streams a reply's tokens to stdout, remembering whether any came."""

    def __init__(self) -> None:
        self.streamed = False

    def __call__(self, token: str) -> None:
        self.streamed = True
        click.echo(token, nl=False)


def _output_spec(path: Path) -> OutputSpec:
    """The `--output-schema` file as an OutputSpec; a ConfigError naming the file when it
    cannot be read, is not JSON, or is not a JSON Schema."""
    import json

    from ..contract.errors import ConfigError, ConfigIssue
    from ..engine.output import OutputSpec
    from ..engine.validation import ToolSchemaError
    from ..support.files import CONFIG_FILE_LIMIT, FileReadError, read_text_file

    try:
        schema = json.loads(read_text_file(path, CONFIG_FILE_LIMIT, "output schema"))
        if not isinstance(schema, dict):
            raise ValueError("it is not a JSON object")
        return OutputSpec.of(schema)
    except FileReadError as err:
        problem = f"cannot read the output schema: {err.reason}"
    except (ValueError, ToolSchemaError) as err:
        problem = f"not a usable JSON Schema: {err}"
    raise ConfigError([ConfigIssue(path, "", problem)])


def _finish(app: App, result: RunResult, streamed: bool, as_json: bool) -> None:
    """Print the result (text, or one JSON object); exit 1 when the run failed or stopped
    early."""
    from ..engine.session import Outcome

    config = app.config()
    if as_json:
        emit_json(result_json(result, config))
    elif result.output is not None:
        emit_json(result.output)
        click.secho(f"session: {result.session_id}", dim=True, err=True)
    else:
        _report(result, streamed, config)
        click.secho(f"session: {result.session_id}", dim=True, err=True)
    if result.outcome not in (Outcome.COMPLETED, Outcome.TERMINAL_TOOL):
        sys.exit(1)


def _notice_new_session(session_id: str) -> None:
    warn(f"no session {session_id!r} in the store: starting it (pass --new if that is meant)")


@contextlib.contextmanager
def _json_errors(as_json: bool) -> Iterator[None]:
    """Ctrl-C exits with 130 (and, with --json, a JSON error); with --json, a named error is
    a JSON object on stdout rather than text."""
    from ..contract.errors import ConfigError

    try:
        yield
    except KeyboardInterrupt:
        if as_json:
            emit_json({"error": {"type": "interrupted", "message": "interrupted (Ctrl-C)"}})
        else:
            warn("interrupted")
        sys.exit(EXIT_INTERRUPTED)
    except ConfigError as err:
        if not as_json:
            raise
        issues = [str(issue) for issue in err.issues]
        emit_json({"error": {"type": "config", "message": "; ".join(issues), "issues": issues}})
        sys.exit(EXIT_CONFIG)
    except AgentframeError as err:
        if not as_json:
            raise
        emit_json({"error": {"type": type(err).__name__, "message": str(err)}})
        sys.exit(EXIT_ERROR)


@click.command()
@_agent_option
@_session_option
@_last_option
@_show_prompt_option
@pass_app
def chat(
    app: App, agent_name: str | None, session_id: str | None, last: bool, show_prompt: bool
) -> None:
    """Chat in a REPL. History lives in the store; Ctrl-C cancels the current run,
    Ctrl-D or /exit leaves."""
    from ..engine.session import Session
    from .slash import ChatCommands

    if show_prompt:
        _show_prompts()

    cwd = Path.cwd()
    _announce_config(app)
    session_id = _pick_session(app, session_id, last)
    agent = _agent(app, agent_name, cwd)
    stack = app.stack()

    async def go() -> None:
        async with stack:
            session = Session(stack, session_id, agent=agent, cwd=cwd)
            click.secho(f"session {session.id} — /help for commands, /exit to leave", dim=True)
            await _repl(session, ChatCommands(app, session))
            await session.end("prompt_input_exit")

    asyncio.run(go())


async def _repl(session: Session, slash: ChatCommands) -> None:
    loop = asyncio.get_running_loop()
    lines: asyncio.Queue[str | None] = asyncio.Queue()
    current: asyncio.Task[Any] | None = None

    def put(line: str | None) -> None:
        loop.call_soon_threadsafe(lines.put_nowait, line)

    def interrupt() -> None:
        if current is not None and not current.done():
            current.cancel()
        else:
            lines.put_nowait(None)

    with contextlib.suppress(NotImplementedError):
        loop.add_signal_handler(signal.SIGINT, interrupt)
    reader = _read_tty if sys.stdin.isatty() else _read_pipe
    threading.Thread(target=reader, args=(put,), daemon=True).start()
    while True:
        click.secho("you> ", fg="green", bold=True, nl=False)
        line = await lines.get()
        step = await _chat_step(slash, line)
        if step is None or step.leave:
            click.echo()
            return
        if step.prompt is None:
            continue
        line, session = step.prompt, slash.session
        streamed = False

        def on_token(token: str) -> None:
            nonlocal streamed
            streamed = True
            click.echo(token, nl=False)

        current = asyncio.create_task(
            session.run(
                line,
                on_token=on_token,
                on_tool=_show_tool,
                on_compaction=_show_compaction,
                on_event=_show_event,
                on_question=TerminalAsker(lines.get),  # answered from the chat's own lines
            )
        )
        try:
            result = await current
        except asyncio.CancelledError:
            click.echo()
            warn("run cancelled")
            continue
        except Exception as err:  # one failed turn is reported; the chat goes on
            if _turn_failed(err, streamed):
                return
            continue
        finally:
            current = None
            slash.after_run()
        _report(result, streamed, session.stack.config)


async def _chat_step(slash: ChatCommands, line: str | None) -> ChatStep | None:
    """None at the end of input; else what the line asks for: a built-in (`/help`), a
    command's prompt, the line itself, or nothing (blank, not UTF-8, an unknown `/x`)."""
    from .slash import ChatStep

    if line is None:
        return None
    if not line.strip():
        return ChatStep()
    problem = utf8_problem(line)
    if problem:
        warn(f"line ignored: {problem}")
        return ChatStep()
    try:
        step = await slash.handle(line.strip())
    except AgentframeError as err:  # a command that cannot expand: said, the chat goes on
        click.secho(f"error: {err}", fg="red", err=True)
        return ChatStep()
    return step or ChatStep(prompt=line)


def _turn_failed(err: Exception, streamed: bool) -> bool:
    """Report a failed turn (no traceback; -vv logs it); True if the chat must end."""
    from ..support.turnlease import SessionDeletedError

    if streamed:
        click.echo()
    log.debug("the turn failed", exc_info=err)
    message = str(err) if isinstance(err, AgentframeError) else f"{type(err).__name__}: {err}"
    click.secho(f"error: {message}", fg="red", err=True)
    if isinstance(err, SessionDeletedError):
        warn("the session was deleted: leaving the chat")
        return True
    return False


def _read_tty(put: Callable[[str | None], None]) -> None:
    """Lines typed at a terminal, with line editing (`input`)."""
    while True:
        try:
            line = input()
        except (EOFError, KeyboardInterrupt):
            put(None)
            return
        put(line)


def _read_pipe(put: Callable[[str | None], None]) -> None:
    """Lines from a pipe or file, read from the descriptor itself: `sys.stdin`'s buffer is
    never held by this daemon thread, so the interpreter can exit while it waits (reading
    `sys.stdin` here crashed at exit: `_enter_buffered_busy`). Overlong lines are cut; bytes
    that are not UTF-8 are kept as surrogates, so the chat can name and skip the line."""
    decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
    pending = ""
    while chunk := _read_chunk():
        pending += decoder.decode(chunk)
        *complete, pending = pending.split("\n")
        for line in complete:
            put(line[:_MAX_LINE])
        pending = pending[: _MAX_LINE + 1]
    pending += decoder.decode(b"", final=True)
    if pending:
        put(pending[:_MAX_LINE])
    put(None)


def _read_chunk() -> bytes:
    try:
        return os.read(sys.stdin.fileno(), 65536)
    except OSError:
        return b""


#: Characters of one chat line; the rest of a longer line is dropped.
_MAX_LINE = 1_000_000
