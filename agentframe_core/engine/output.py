"""Typed results: the shape a run's final answer must have, and checking an answer against it.

`OutputSpec.of(output)` takes what a developer writes (a pydantic model, a dataclass, a
TypedDict, `list[...]`, a union, or a JSON Schema dict) and gives the JSON schema the model is
asked for and a check of its reply. The loop (`session.py`) asks for the schema the strongest
way the adapter allows and sends a failed check's errors back, `retries` times at most.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from pydantic import TypeAdapter
from pydantic import ValidationError as PydanticValidationError

from ..contract.errors import AgentframeError
from .texttools import strip_fence
from .validation import MAX_ERRORS, argument_problems, clip

__all__ = ["ModelRetry", "OutputInvalid", "OutputSpec", "OutputValidator"]

#: A check of the validated value: returns it (or a replacement), or raises ModelRetry.
OutputValidator = Callable[[Any], Any]


class ModelRetry(AgentframeError):
    """Raised by an output validator (or a tool) to ask the model to try again: the message
    is what the model reads."""


class OutputInvalid(Exception):
    """A reply that is not a valid output; `errors` say why, for the model to read."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__("; ".join(errors))
        self.errors = errors


@dataclass(frozen=True, slots=True)
class OutputSpec:
    """The expected final answer: its JSON `schema`, how to read a reply into a value, the
    `validators` that check the value, and how many invalid replies get their errors back."""

    schema: dict[str, Any]
    read: Callable[[Any], Any]
    validators: Sequence[OutputValidator] = field(default_factory=tuple)
    retries: int = 2

    @classmethod
    def of(
        cls,
        output: Any,
        *,
        validators: Sequence[OutputValidator] = (),
        retries: int = 2,
    ) -> OutputSpec:
        """`output`: a type pydantic can validate, or a JSON Schema dict (the value is then
        the decoded JSON, checked by the schema)."""
        if retries < 0:
            raise ValueError(f"output_retries must be 0 or more, got {retries}")
        if isinstance(output, dict):
            argument_problems(output, {})  # compiled now: an unusable schema fails here
            return cls(output, partial(_schema_checked, output), tuple(validators), retries)
        try:
            adapter: TypeAdapter[Any] = TypeAdapter(output)
            schema = adapter.json_schema()
        except Exception as err:  # pydantic's errors for unsupported types vary
            problem = f"output={output!r} is not a type agentframe can validate: {err}"
            raise TypeError(problem) from None
        return cls(schema, adapter.validate_python, tuple(validators), retries)

    async def check(self, reply: str) -> Any:
        """The validated value of `reply` (JSON, alone or in a code fence), or OutputInvalid."""
        text = strip_fence(reply.strip())
        try:
            data = json.loads(text)
        except ValueError as err:
            raise OutputInvalid([f"the reply is not JSON ({err})"]) from None
        try:
            value = self.read(data)
        except PydanticValidationError as err:
            raise OutputInvalid(_pydantic_errors(err)) from None
        for validator in self.validators:
            try:
                value = validator(value)
                if inspect.isawaitable(value):
                    value = await value
            except ModelRetry as retry:
                raise OutputInvalid([clip(str(retry))]) from None
        return value

    def instructions(self, *, wrapped: bool = False) -> str:
        """What the system prompt says about the final answer (`wrapped`: as the value of
        `{"answer": ...}`, the text-tools form of a final answer)."""
        form = 'only {"answer": VALUE}, VALUE' if wrapped else "only a JSON value"
        return (
            f"# Final answer\n\nWhen you have the final answer, reply with {form} valid "
            "against this JSON schema (no prose, no code fence):\n"
            + json.dumps(self.schema, ensure_ascii=False)
        )


def _schema_checked(schema: dict[str, Any], data: Any) -> Any:
    """`data` when it matches `schema` (checked as tool arguments are: bounded, no fetching)."""
    problems = argument_problems(schema, data)
    if problems:
        raise OutputInvalid(problems)
    return data


def _pydantic_errors(err: PydanticValidationError) -> list[str]:
    errors = err.errors(include_url=False, include_input=False, include_context=False)
    problems = [
        clip(f"{'.'.join(map(str, e['loc'])) or 'value'}: {e['msg']}") for e in errors[:MAX_ERRORS]
    ]
    if len(errors) > MAX_ERRORS:
        problems.append(f"and {len(errors) - MAX_ERRORS} more")
    return problems
