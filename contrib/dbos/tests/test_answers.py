"""What `agentframe send RUN q-... ANSWER` accepts as an answer: checked against the question
before anything is sent, a wrong one named by its field (unit tests of the parser; the
questions test sends real answers to a real run)."""

from __future__ import annotations

import click
import pytest
from agentframe_dbos.cli import _answer_of

from agentframe_core import Question

FORM = Question(
    "Refund?",
    {
        "type": "object",
        "properties": {
            "approver": {"type": "string"},
            "amount": {"type": "integer", "default": 10},
            "reason": {"type": "string", "enum": ["damaged", "late"]},
        },
        "required": ["approver"],
    },
)


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("decline", {"action": "decline"}),
        (" cancel\n", {"action": "cancel"}),
        ('{"approver": "Ada"}', {"action": "accept", "content": {"approver": "Ada", "amount": 10}}),
        (
            '{"approver": "Ada", "amount": 3, "reason": "late"}',
            {"action": "accept", "content": {"approver": "Ada", "amount": 3, "reason": "late"}},
        ),
    ],
)
def test_an_answer_to_a_form(text: str, answer: dict[str, object]) -> None:
    assert _answer_of(FORM, text) == answer


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("accept", "field 'approver': required"),
        ('{"approver": 7}', "field 'approver': must be a string"),
        ('{"approver": "Ada", "reason": "bored"}', "field 'reason': one of damaged, late"),
        ('{"approver": "Ada", "admin": true}', "field 'admin': the question has no such field"),
        ('{"approver": {"nested": "x"}}', "field 'approver': must be a string"),
        ("yes", "a JSON object of the question's fields"),
        ("[1, 2]", "a JSON object of the question's fields"),
        ("[" * 100_000, "a JSON object of the question's fields"),
        (b'{"approver": "\xff"}'.decode("utf-8", "surrogateescape"), "not UTF-8 text"),
    ],
)
def test_a_wrong_answer_is_refused_by_name(text: str, named: str) -> None:
    with pytest.raises(click.BadParameter) as refused:
        _answer_of(FORM, text)
    assert named in refused.value.format_message()


def test_a_confirmation_is_accepted_without_a_form() -> None:
    sure = Question("Delete the branch?")
    assert _answer_of(sure, "accept") == {"action": "accept"}
    assert _answer_of(sure, "{}") == {"action": "accept"}
    with pytest.raises(click.BadParameter, match="yes or no"):
        _answer_of(sure, '{"approver": "Ada"}')
