"""Questions a part asks the person running the agent, and the answers it gets.

A part that needs a decision only a person can make (an MCP server's elicitation, a permission
rule that says `ask`) awaits `ctx.ask(Question(...))`. Whoever started the run answers it: the
CLI at the terminal, a server by forwarding it to its own client. When nobody can answer, the
question is declined at once with the reason, so no part ever waits for a person who is not
there.

A question's `schema` is the subset of JSON Schema that MCP's elicitation allows: an object of
flat fields (string, number, integer, boolean; a string may be an `enum`), with `required` and
`default`s. Anything else, or more than `MAX_FIELDS` fields, is refused when the question is
made, so every answerer can render every question.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "MAX_FIELDS",
    "MAX_MESSAGE",
    "NOBODY_TO_ASK",
    "Answer",
    "FormField",
    "Question",
    "QuestionCallback",
]

Action = Literal["accept", "decline", "cancel"]

#: Fields in one question's form.
MAX_FIELDS = 32
#: Characters of a question's message (and of a field's title or description).
MAX_MESSAGE = 4000
#: Values an `enum` field may offer.
MAX_CHOICES = 100

#: Why a question is declined when the run has no one to ask.
NOBODY_TO_ASK = "no one can answer: the run is not interactive"

_PYTHON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "number": (int, float),
    "integer": (int,),
    "boolean": (bool,),
}
_TYPES = set(_PYTHON_TYPES)


@dataclass(frozen=True)
class FormField:
    """One field of a question's form, read from its schema."""

    name: str
    type: str
    title: str = ""
    description: str = ""
    required: bool = False
    default: Any = None
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class Question:
    """`message` for the person; `schema` the form to fill (None: a yes/no confirmation);
    `source` who asks (`mcp:github`, `permissions`, ...). Raises ValueError, naming the
    field, for a schema outside the elicitation subset."""

    message: str
    schema: dict[str, Any] | None = None
    source: str = ""
    fields: tuple[FormField, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if len(self.message) > MAX_MESSAGE:
            raise ValueError(f"the question's message is over {MAX_MESSAGE} characters")
        fields = () if self.schema is None else _form_fields(self.schema)
        object.__setattr__(self, "fields", fields)

    @property
    def confirmation(self) -> bool:
        """True when the question asks only for yes or no."""
        return self.schema is None

    def content_problem(self, content: dict[str, Any]) -> tuple[str, str] | None:
        """(the field, what is wrong) when an accepted form's `content` is not what the form
        allows: a field it does not have, a value not of its field's type or not one of its
        choices, a required field missing. None when it fits. Every answerer that takes a
        form from outside (an HTTP client, `agentframe send`) checks it here."""
        fields = {f.name: f for f in self.fields}
        for name, value in content.items():
            spec = fields.get(name)
            if spec is None:
                return name, "the question has no such field"
            wrong_bool = isinstance(value, bool) and spec.type != "boolean"
            if wrong_bool or not isinstance(value, _PYTHON_TYPES[spec.type]):
                return name, f"must be {'an' if spec.type == 'integer' else 'a'} {spec.type}"
            if spec.choices and value not in spec.choices:
                return name, f"one of {', '.join(spec.choices)}"
        missing = next((f.name for f in self.fields if f.required and f.name not in content), None)
        return None if missing is None else (missing, "required")


@dataclass(frozen=True)
class Answer:
    """`accept` (with the form's `content`), `decline` or `cancel`; `reason` says why, when
    the answer was not the person's own (nobody to ask, the asking failed)."""

    action: Action
    content: dict[str, Any] | None = None
    reason: str = ""

    @property
    def accepted(self) -> bool:
        return self.action == "accept"


#: What a run is given to answer questions: `await on_question(question) -> Answer`.
QuestionCallback = Callable[[Question], Awaitable[Answer]]


def _form_fields(schema: dict[str, Any]) -> tuple[FormField, ...]:
    if not isinstance(schema, dict) or schema.get("type") != "object":
        raise ValueError("a question's schema must be an object schema ({'type': 'object'})")
    properties = schema.get("properties", {})
    if not isinstance(properties, dict):
        raise ValueError("a question's schema: 'properties' must be a mapping")
    if len(properties) > MAX_FIELDS:
        raise ValueError(f"a question's schema has {len(properties)} fields (at most {MAX_FIELDS})")
    required = schema.get("required", [])
    if not isinstance(required, list):
        raise ValueError("a question's schema: 'required' must be a list")
    return tuple(_field(name, spec, name in required) for name, spec in properties.items())


def _field(name: Any, spec: Any, required: bool) -> FormField:
    where = f"a question's field {str(name)[:80]!r}"
    if not isinstance(name, str) or not isinstance(spec, dict):
        raise ValueError(f"{where}: must be a name and a schema")
    kind = spec.get("type")
    if kind not in _TYPES:
        raise ValueError(f"{where}: type {kind!r} is not one of {sorted(_TYPES)}")
    texts = [spec.get("title", ""), spec.get("description", "")]
    if any(not isinstance(text, str) or len(text) > MAX_MESSAGE for text in texts):
        raise ValueError(f"{where}: title and description must be text of {MAX_MESSAGE} or less")
    choices = spec.get("enum", [])
    if not isinstance(choices, list) or len(choices) > MAX_CHOICES:
        raise ValueError(f"{where}: 'enum' must be a list of at most {MAX_CHOICES} values")
    if choices and (kind != "string" or not all(isinstance(c, str) for c in choices)):
        raise ValueError(f"{where}: only a string field may have an enum, of strings")
    return FormField(name, kind, texts[0], texts[1], required, spec.get("default"), tuple(choices))
