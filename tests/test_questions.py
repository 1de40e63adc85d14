"""Questions to the person (`ctx.ask`): the form subset, nobody to ask, and the terminal."""

from __future__ import annotations

import asyncio
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from agentframe_core import Answer, Question, RunContext
from agentframe_core.cli.asking import TerminalAsker, shown
from agentframe_core.contract.questions import MAX_FIELDS, NOBODY_TO_ASK
from agentframe_core.testing import run_cli

FORM = {
    "type": "object",
    "properties": {
        "colour": {"type": "string", "enum": ["red", "blue"], "title": "Colour"},
        "count": {"type": "integer", "default": 3},
        "sure": {"type": "boolean"},
    },
    "required": ["colour"],
}


@pytest.mark.parametrize(
    ("schema", "named"),
    [
        ({"type": "array"}, "object schema"),
        ({"type": "object", "properties": {"a": {"type": "object"}}}, "field 'a'"),
        ({"type": "object", "properties": {"a": {"type": "integer", "enum": ["x"]}}}, "'a'"),
        (
            {"type": "object", "properties": {f"f{i}": {"type": "string"} for i in range(99)}},
            f"at most {MAX_FIELDS}",
        ),
    ],
)
def test_a_form_outside_the_elicitation_subset_is_refused_by_name(
    schema: dict[str, Any], named: str
) -> None:
    with pytest.raises(ValueError, match=named):
        Question("fill this", schema=schema)


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ({"colour": "red", "count": 2, "sure": True}, None),
        ({"colour": "red", "count": 2.5}, ("count", "must be an integer")),
        ({"colour": "red", "count": True}, ("count", "must be an integer")),
        ({"colour": "green"}, ("colour", "one of red, blue")),
        ({"colour": "red", "extra": 1}, ("extra", "the question has no such field")),
        ({"count": 2}, ("colour", "required")),
    ],
)
def test_a_forms_content_is_checked_field_by_field(
    content: dict[str, Any], problem: tuple[str, str] | None
) -> None:
    assert Question("Paint?", FORM).content_problem(content) == problem


def test_nobody_to_ask_declines_at_once_and_a_failing_asker_cancels() -> None:
    async def broken(question: Question) -> Answer:
        raise OSError("the terminal went away")

    ctx = RunContext("s", stack=None)  # type: ignore[arg-type]
    assert asyncio.run(ctx.ask(Question("ok?"))) == Answer("decline", reason=NOBODY_TO_ASK)
    ctx.on_question = broken
    answer = asyncio.run(ctx.ask(Question("ok?")))
    assert answer.action == "cancel" and "the terminal went away" in answer.reason


def _asked(lines: list[str | None], question: Question) -> Answer:
    feed = iter(lines)

    async def read_line() -> str | None:
        return next(feed)

    return asyncio.run(TerminalAsker(read_line)(question))


def test_the_terminal_fills_a_form_with_choices_defaults_and_retries() -> None:
    answer = _asked(["", "purple", "2", "", "maybe", "y"], Question("Paint?", schema=FORM))
    assert answer == Answer("accept", {"colour": "blue", "count": 3, "sure": True})


def test_the_terminal_declines_cancels_and_gives_up() -> None:
    assert _asked(["/decline"], Question("Paint?", schema=FORM)).action == "decline"
    assert _asked(["n"], Question("Delete it?")).action == "decline"
    assert _asked([None], Question("Delete it?")) == Answer("cancel", reason="the input ended")
    assert _asked(["x", "x", "x"], Question("Delete it?")).reason == "no valid answer in 3 tries"


def test_an_askers_escape_sequences_are_shown_not_obeyed() -> None:
    assert shown("ok\x1b[2J\x07 done") == "ok\\x1b[2J\\x07 done"


ASKING_TOOL = '''
from agentframe_core import Question, RunContext

async def paint(ctx: RunContext, what: str) -> str:
    """Paint something, once the person agrees."""
    yes = await ctx.ask(Question(f"Paint the {what}?", source="painter"))
    form = await ctx.ask(Question("How?", schema=FORM))
    return f"{yes.action} {form.action} {form.content}"
'''

CONFIG = """
adapter:
  use: scripted
  replies:
    - tool_calls: [{name: paint, arguments: {what: shed}}]
    - Painted.
tools: [{use: functions, import: ["painter:paint"]}]
"""


@pytest.fixture
def painter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A config whose one tool asks twice; its module beside it, on the path."""
    (tmp_path / "painter.py").write_text(f"FORM = {FORM!r}\n{ASKING_TOOL}")
    (tmp_path / "agentframe.yaml").write_text(CONFIG)
    monkeypatch.setenv("PYTHONPATH", f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")


def test_chat_answers_a_tools_questions_from_its_own_input(tmp_path: Path, painter: None) -> None:
    done = run_cli(tmp_path, "chat", input="paint it\ny\n1\n7\nn\n/exit\n")
    assert done.returncode == 0, done.stderr
    assert "? painter: Paint the shed?" in done.stderr
    assert "accept accept {'colour': 'red', 'count': 7, 'sure': False}" in done.stderr
    assert "Painted." in done.stdout


def test_a_run_without_a_terminal_declines_and_goes_on(tmp_path: Path, painter: None) -> None:
    done = run_cli(tmp_path, "run", "paint it", stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    assert "decline decline None" in done.stderr
    assert "Painted." in done.stdout
