"""Typed results in the loop: `Session.run(output=...)` asks for the answer's schema the
strongest way the adapter allows, sends an invalid answer's errors back `retries` times, and
ends `invalid_output` with them after that, never with an exception."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import pytest
from pydantic import BaseModel
from typing_extensions import TypedDict  # pydantic needs it for TypedDicts before 3.12

from agentframe_core import ModelRetry, Outcome, OutputSpec, Session, Stack
from agentframe_core.engine.validation import ToolSchemaError
from agentframe_core.testing import ScriptedAdapter


class Sum(BaseModel):
    total: int


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def sent(stack: Stack) -> list[str]:
    """The last message of every request the model received."""
    assert isinstance(stack.adapter, ScriptedAdapter)
    return [request.messages[-1].content for request in stack.adapter.requests]


async def test_invalid_twice_then_valid_succeeds_with_the_errors_sent_back(
    make_stack: Callable[..., Stack],
) -> None:
    stack = make_stack(["the total is five", '{"total": "five"}', '{"total": 5}'])
    result = await Session(stack).run("2+3?", output=OutputSpec.of(Sum))
    assert result.outcome is Outcome.COMPLETED
    assert result.output == Sum(total=5)
    assert result.output_errors == []
    assert result.turns == 3
    second, third = sent(stack)[1:]
    assert "the reply is not JSON" in second
    assert "total: Input should be a valid integer" in third


async def test_invalid_three_times_ends_invalid_output_with_the_errors(
    make_stack: Callable[..., Stack],
) -> None:
    stack = make_stack(['{"total": "x"}'] * 3)
    result = await Session(stack).run("2+3?", output=OutputSpec.of(Sum))
    assert result.outcome is Outcome.INVALID_OUTPUT
    assert result.output is None
    assert result.output_errors and "total" in result.output_errors[0]
    assert result.turns == 3  # the first answer and two retries


async def test_output_retries_bounds_the_tries(make_stack: Callable[..., Stack]) -> None:
    stack = make_stack(["no", '{"total": 1}'])
    result = await Session(stack).run("?", output=OutputSpec.of(Sum, retries=0))
    assert result.outcome is Outcome.INVALID_OUTPUT
    assert result.turns == 1


async def test_tools_run_as_usual_before_the_typed_answer(
    make_stack: Callable[..., Stack],
) -> None:
    call = {"tool_calls": [{"name": "add", "arguments": {"a": 2, "b": 3}}]}
    stack = make_stack([call, '```json\n{"total": 5}\n```'], [add])
    result = await Session(stack).run("2+3?", output=OutputSpec.of(Sum))
    assert result.output == Sum(total=5)
    assert [(r.name, r.arguments, r.content) for r in result.tool_calls] == [
        ("add", {"a": 2, "b": 3}, "5")
    ]


async def test_a_constrained_backend_gets_the_schema_and_others_the_prompt(
    make_stack: Callable[..., Stack],
) -> None:
    spec = OutputSpec.of(Sum)
    constrained = make_stack(['{"total": 5}'], json_schema=True)
    await Session(constrained).run("?", output=spec)
    request = constrained.adapter.requests[0]  # type: ignore[attr-defined]
    assert request.response_schema == spec.schema

    prompted = make_stack(['{"total": 5}'])
    await Session(prompted).run("?", output=spec)
    request = prompted.adapter.requests[0]  # type: ignore[attr-defined]
    assert request.response_schema is None
    assert json.dumps(spec.schema) in request.messages[0].content


async def test_text_tools_put_the_output_schema_in_the_answer_branch(
    make_stack: Callable[..., Stack],
) -> None:
    """A text-tools backend with a grammar (llama.cpp): the union of the tool calls and
    `{"answer": <the output>}`, and the answer's JSON read back as the output."""
    stack = make_stack(
        ['{"tool": "add", "args": {"a": 2, "b": 3}}', '{"answer": {"total": 5}}'],
        [add],
        native_tools=False,
        json_schema=True,
    )
    spec = OutputSpec.of(Sum)
    result = await Session(stack).run("2+3?", output=spec)
    assert result.outcome is Outcome.COMPLETED, result.output_errors
    assert result.output == Sum(total=5)
    schema = stack.adapter.requests[0].response_schema  # type: ignore[attr-defined]
    answer = next(o for o in schema["oneOf"] if "answer" in o["properties"])
    assert answer["properties"]["answer"] == spec.schema
    system = stack.adapter.requests[0].messages[0].content  # type: ignore[attr-defined]
    assert '{"answer": "<your answer>"}' not in system  # the output's form, not text's


@dataclass
class Point:
    x: int
    y: int


class Movie(TypedDict):
    title: str
    year: int


class Cat(BaseModel):
    kind: Literal["cat"]
    lives: int


class Dog(BaseModel):
    kind: Literal["dog"]
    good: bool


@pytest.mark.parametrize(
    ("output", "reply", "expected"),
    [
        (Point, '{"x": 1, "y": 2}', Point(1, 2)),
        (Movie, '{"title": "Up", "year": 2009}', {"title": "Up", "year": 2009}),
        (list[int], "[1, 2, 3]", [1, 2, 3]),
        (Cat | Dog, '{"kind": "dog", "good": true}', Dog(kind="dog", good=True)),
        (
            {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
            '{"n": 4}',
            {"n": 4},
        ),
    ],
    ids=["dataclass", "typeddict", "list", "union", "json-schema"],
)
async def test_each_kind_of_output_is_validated(
    make_stack: Callable[..., Stack], output: Any, reply: str, expected: Any
) -> None:
    stack = make_stack(['{"wrong": true}', reply])
    result = await Session(stack).run("?", output=OutputSpec.of(output))
    assert result.outcome is Outcome.COMPLETED, result.output_errors
    assert result.output == expected
    assert result.turns == 2  # the wrong shape was refused first


async def test_a_validator_asks_again_with_its_message(make_stack: Callable[..., Stack]) -> None:
    def positive(value: Sum) -> Sum:
        if value.total <= 0:
            raise ModelRetry("the total must be positive")
        return value

    stack = make_stack(['{"total": -1}', '{"total": 5}'])
    result = await Session(stack).run("?", output=OutputSpec.of(Sum, validators=[positive]))
    assert result.output == Sum(total=5)
    assert "the total must be positive" in sent(stack)[1]


def test_an_unusable_output_fails_where_it_is_given() -> None:
    with pytest.raises(ToolSchemaError, match="not valid JSON Schema"):
        OutputSpec.of({"type": 5})
    with pytest.raises(TypeError, match="not a type agentframe can validate"):
        OutputSpec.of(object())
    with pytest.raises(ValueError, match="output_retries"):
        OutputSpec.of(Sum, retries=-1)
