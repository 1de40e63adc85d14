"""Questions answered at the terminal: the `on_question` of `chat`, and of `run` on a TTY.

A question goes to stderr (stdout stays the reply), then each field of its form in turn, with
its default and choices; an empty line takes the default, `/decline` or `/cancel` answers so
at any prompt. Answers come through `read_line`: `chat` reads them from the lines its reader
thread already reads (that thread owns stdin), `run` from a thread of its own. Text from the
asker (an MCP server, say) is shown with its control characters escaped, so it cannot move
the cursor or rewrite what is on the screen.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
from collections.abc import Awaitable, Callable
from typing import Any

import click

from ..contract.questions import Answer, FormField, Question

ReadLine = Callable[[], Awaitable[str | None]]

#: Tries at one field before the question is cancelled.
_TRIES = 3
_YES = {"y", "yes", "true", "1"}
_NO = {"n", "no", "false", "0"}


class _Stop(Exception):
    def __init__(self, answer: Answer) -> None:
        self.answer = answer


class TerminalAsker:
    """Asks one question at a time (sub-agents may ask at once), reading with `read_line`."""

    def __init__(self, read_line: ReadLine) -> None:
        self._read_line = read_line
        self._one_at_a_time = asyncio.Lock()

    async def __call__(self, question: Question) -> Answer:
        async with self._one_at_a_time:
            who = f"{shown(question.source)}: " if question.source else ""
            click.secho(f"\n? {who}{shown(question.message)}", fg="yellow", bold=True, err=True)
            try:
                if question.confirmation:
                    yes = await self._ask(
                        "allow? [y/n]", lambda text: _boolean(text, None), required=True
                    )
                    return Answer("accept" if yes else "decline")
                content: dict[str, Any] = {}
                for field in question.fields:
                    value = await self._field(field)
                    if value is not None:
                        content[field.name] = value
                return Answer("accept", content)
            except _Stop as stop:
                return stop.answer

    async def _field(self, field: FormField) -> Any:
        label = shown(field.title or field.name)
        if field.description:
            label += f" ({shown(field.description)})"
        if field.choices:
            for number, choice in enumerate(field.choices, 1):
                click.echo(f"    {number}. {shown(choice)}", err=True)
        if field.default is not None:
            label += f" [{shown(str(field.default))}]"
        return await self._ask(label, lambda text: _parse(field, text), field.required)

    async def _ask(self, label: str, parse: Callable[[str], Any], required: bool) -> Any:
        for _ in range(_TRIES):
            click.secho(f"  {label}: ", fg="yellow", nl=False, err=True)
            line = await self._read_line()
            if line is None:
                raise _Stop(Answer("cancel", reason="the input ended"))
            text = line.strip()
            if text in ("/decline", "/cancel"):
                raise _Stop(Answer("decline" if text == "/decline" else "cancel"))
            try:
                value = parse(text)
            except ValueError as err:
                click.secho(f"  {err}", fg="red", err=True)
                continue
            if value is None and required:
                click.secho("  an answer is required (or /decline, /cancel)", fg="red", err=True)
                continue
            return value
        raise _Stop(Answer("cancel", reason=f"no valid answer in {_TRIES} tries"))


def _parse(field: FormField, text: str) -> Any:
    """The typed value of `text` for `field`; its default when empty (None: no value)."""
    if not text:
        return field.default
    if field.choices:
        if text in field.choices:
            return text
        if text.isdigit() and 1 <= int(text) <= len(field.choices):
            return field.choices[int(text) - 1]
        raise ValueError(f"choose one of 1-{len(field.choices)}")
    if field.type == "boolean":
        return _boolean(text, field.default)
    if field.type == "integer":
        try:
            return int(text)
        except ValueError:
            raise ValueError("a whole number, please") from None
    if field.type == "number":
        try:
            return float(text)
        except ValueError:
            raise ValueError("a number, please") from None
    return text


def _boolean(text: str, default: Any) -> bool | None:
    word = text.lower()
    if not word:
        return default if isinstance(default, bool) else None
    if word in _YES:
        return True
    if word in _NO:
        return False
    raise ValueError("yes or no, please")


def shown(text: str) -> str:
    """`text` safe to print on a terminal: control characters (escape sequences) escaped."""
    return "".join(char if char.isprintable() or char == " " else repr(char)[1:-1] for char in text)


def stdin_lines() -> ReadLine:
    """`read_line` for a run with a terminal of its own: each line read by a daemon thread, so
    Ctrl-C or the end of the run never waits for a line that is not typed."""

    async def read_line() -> str | None:
        loop = asyncio.get_running_loop()
        line: asyncio.Future[str | None] = loop.create_future()

        def read() -> None:
            try:
                text: str | None = sys.stdin.readline()
            except (OSError, ValueError):
                text = None
            result = text.rstrip("\n") if text else None
            with contextlib.suppress(RuntimeError):  # the loop closed: nobody waits
                loop.call_soon_threadsafe(_settle, line, result)

        threading.Thread(target=read, daemon=True).start()
        return await line

    return read_line


def _settle(line: asyncio.Future[str | None], text: str | None) -> None:
    if not line.done():  # not cancelled meanwhile
        line.set_result(text)
