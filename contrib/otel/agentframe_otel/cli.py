"""`agentframe trace show` and `agentframe trace list`: the local trace store, read."""

from __future__ import annotations

import time
from typing import Any

import click

from agentframe_core.cli import App, emit_json, handle_errors, pass_app

from .store import read_traces

__all__ = ["trace"]


@click.group()
def trace() -> None:
    """Traces of past runs, from the local trace store (agentframe-otel)."""


@trace.command("show")
@click.argument("target", required=False)
@click.option("--json", "as_json", is_flag=True, help="The traces as JSON (read_traces).")
@click.option("--limit", default=1, show_default=True, help="Traces of a session to show.")
@pass_app
def show(app: App, target: str | None, as_json: bool, limit: int) -> None:
    """The tree of a run's spans: model calls, tool calls, durations, tokens, cache share
    and errors. TARGET is a run id or a session id (default: the latest run)."""
    with handle_errors():
        found = _find(app, target, max(1, limit))
    if as_json:
        emit_json(found)
        return
    if not found["traces"]:
        raise click.ClickException(
            (f"no trace of {target!r} in the trace store" if target else "no trace stored yet")
            + " (tracing is off unless asked for: a `telemetry:` block in agentframe.yaml, "
            "or $OTEL_EXPORTER_OTLP_ENDPOINT)"
        )
    for index, one in enumerate(found["traces"]):
        if index:
            click.echo()
        click.echo(render(one))


@trace.command("list")
@click.option("--session", "session_id", help="Only the traces of this session.")
@click.option("--limit", default=20, show_default=True)
@click.option("--json", "as_json", is_flag=True)
@pass_app
def list_(app: App, session_id: str | None, limit: int, as_json: bool) -> None:
    """The latest traces, newest first: one line each."""
    with handle_errors():
        found = read_traces(app.config_path(), session_id=session_id, limit=max(1, limit))
    if as_json:
        emit_json(found)
        return
    for one in found["traces"]:
        usage = _tokens(one["spans"], "chat")
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(one["start"]))
        click.echo(
            f"{when}  run {one['run_id'] or '-'}  session {one['session_id'] or '-'}  "
            f"{one['agent'] or '-'}  {_ms(one['duration_ms'])}  {len(one['spans'])} spans  "
            f"{usage}  {one['status']}"
        )


def _find(app: App, target: str | None, limit: int) -> dict[str, Any]:
    path = app.config_path()
    if target is None:
        return read_traces(path, limit=limit)
    by_run = read_traces(path, run_id=target, limit=1)
    return by_run if by_run["traces"] else read_traces(path, session_id=target, limit=limit)


def _ms(value: float) -> str:
    return f"{value / 1000:.2f} s" if value >= 1000 else f"{value:.1f} ms"


def _tokens(spans: list[dict[str, Any]], operation: str) -> str:
    """Input and output tokens of the spans of one operation, and the cached share."""
    chosen = [s["attributes"] for s in spans if s["operation"] == operation]
    prompt = sum(int(a.get("gen_ai.usage.input_tokens", 0)) for a in chosen)
    output = sum(int(a.get("gen_ai.usage.output_tokens", 0)) for a in chosen)
    cached = sum(int(a.get("gen_ai.usage.cache_read.input_tokens", 0)) for a in chosen)
    share = f", {cached * 100 // prompt}% cached" if prompt and cached else ""
    return f"{prompt} in / {output} out tokens{share}"


def _detail(span: dict[str, Any]) -> str:
    attrs, operation = span["attributes"], span["operation"]
    parts: list[str] = []
    if operation in {"chat", "invoke_agent"}:
        prompt = int(attrs.get("gen_ai.usage.input_tokens", 0))
        output = int(attrs.get("gen_ai.usage.output_tokens", 0))
        cached = int(
            attrs.get("gen_ai.usage.cache_read.input_tokens")
            or attrs.get("agentframe.usage.cached_tokens")
            or 0
        )
        parts.append(f"{prompt} in / {output} out")
        if cached and prompt:
            parts.append(f"{cached * 100 // prompt}% cached")
    if operation == "chat" and attrs.get("gen_ai.response.finish_reasons"):
        parts.append("finish " + ",".join(attrs["gen_ai.response.finish_reasons"]))
    if operation == "invoke_agent" and attrs.get("agentframe.run.outcome"):
        parts.append(str(attrs["agentframe.run.outcome"]))
    if operation == "compaction":
        parts.append(
            f"{attrs.get('agentframe.compaction.tokens_before')} -> "
            f"{attrs.get('agentframe.compaction.tokens_after')} tokens"
        )
    if operation == "retrieval":
        parts.append(f"{attrs.get('agentframe.retrieval.snippets', 0)} snippets")
    if span["status"] == "error":
        parts.append(f"ERROR {span['error'] or ''}".strip())
    return "  ".join(parts)


def render(one: dict[str, Any]) -> str:
    """One trace as a tree, a span a line: name, duration, then what matters for its kind."""
    children: dict[str | None, list[dict[str, Any]]] = {}
    for span in one["spans"]:
        children.setdefault(span["parent_id"], []).append(span)
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(one["start"]))
    lines = [
        f"trace {one['trace_id']}  {when}  {_ms(one['duration_ms'])}  {one['status']}",
        f"run {one['run_id'] or '-'}  session {one['session_id'] or '-'}  "
        f"agent {one['agent'] or '-'}  {_tokens(one['spans'], 'chat')}",
    ]

    def walk(parent: str | None, prefix: str) -> None:
        kids = children.get(parent, [])
        for index, span in enumerate(kids):
            last = index == len(kids) - 1
            label = f"{prefix}{'└─ ' if last else '├─ '}{span['name']}"
            detail = _detail(span)
            lines.append(f"{label:<48} {_ms(span['duration_ms']):>10}  {detail}".rstrip())
            walk(span["span_id"], prefix + ("   " if last else "│  "))

    walk(None, "")
    return "\n".join(lines)
