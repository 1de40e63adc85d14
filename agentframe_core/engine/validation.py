"""Tool-call arguments checked against the tool's JSON schema: once compiled, never fetching.

A schema is untrusted (an MCP server sends it), and so are the arguments (the model sends them):
- a `$ref` resolves only inside the schema itself: the validators' registry refuses every
  retrieval, so no URL is fetched and no file is read (`file:///dev/zero`, a secret file);
- a schema that refers to itself without end (`{"$ref": "#"}`) is a `ToolSchemaError`, not a
  RecursionError with its traceback;
- at most `MAX_ERRORS` errors are looked for, and each is cut to `MAX_MESSAGE` characters:
  jsonschema quotes whole values (a 15 MB argument, a million-value enum).
Each schema is compiled once, while its tool keeps the same schema object: sessions of one
process share their tools' schema objects, so one cache serves the process. A dispatcher that
checks its arguments itself, against the very model the schema was made from (a function
tool's signature), marks that schema `checked_by_dispatcher`: its arguments are checked once,
there, not twice.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict
from typing import Any

from ..contract.errors import AgentframeError

__all__ = [
    "MAX_ERRORS",
    "MAX_MESSAGE",
    "ToolSchemaError",
    "argument_problems",
    "checked_by_dispatcher",
    "clip",
]

#: Errors listed per call, at most (the search stops after one more).
MAX_ERRORS = 5
#: Characters of one error's text, at most.
MAX_MESSAGE = 300
#: Compiled schemas kept, the least recently used dropped first.
_CACHE_SIZE = 512


class ToolSchemaError(AgentframeError):
    """A tool's schema cannot check arguments: a `$ref` outside it, a `$ref` cycle, or a
    schema that is not valid JSON Schema. The tool cannot be called; the others can."""


class _Compiled:
    """Schema object -> its validator, kept while the same object is offered."""

    def __init__(self) -> None:
        self._cache: OrderedDict[int, tuple[dict[str, Any], Any]] = OrderedDict()

    def put(self, schema: dict[str, Any], validator: Any) -> None:
        self._cache[id(schema)] = (schema, validator)  # the schema kept: its id stays its own
        self._cache.move_to_end(id(schema))
        if len(self._cache) > _CACHE_SIZE:
            self._cache.popitem(last=False)

    def get(self, schema: dict[str, Any]) -> Any:
        key = id(schema)
        cached = self._cache.get(key)
        if cached is not None and cached[0] is schema:
            self._cache.move_to_end(key)
            return cached[1]
        validator = _compile(schema)
        self.put(schema, validator)
        return validator


def _compile(schema: dict[str, Any]) -> Any:
    from jsonschema import exceptions, validators
    from referencing import Registry

    cls = validators.validator_for(schema)
    try:
        cls.check_schema(schema)
    except exceptions.SchemaError as err:
        raise ToolSchemaError(f"its schema is not valid JSON Schema: {clip(err.message)}") from None
    return cls(schema, registry=Registry())  # no `retrieve`: a ref outside is unresolvable


#: In place of a validator: the schema's dispatcher checks the arguments itself.
_BY_DISPATCHER = object()
_COMPILED = _Compiled()


def checked_by_dispatcher(schema: dict[str, Any]) -> None:
    """Leave the arguments of calls against `schema` (this object) to its dispatcher, which
    checks them against the model `schema` was made from. Evicted from the cache, the schema
    is compiled and checked here again: slower, never unchecked."""
    _COMPILED.put(schema, _BY_DISPATCHER)


def argument_problems(schema: dict[str, Any], arguments: dict[str, Any]) -> list[str]:
    """What is wrong with `arguments` (empty when they match), each item naming its place
    and cut to `MAX_MESSAGE` characters; at most `MAX_ERRORS` items and a last one saying
    there are more. Raises ToolSchemaError when the schema itself cannot be used."""
    validator = _COMPILED.get(schema)
    if validator is _BY_DISPATCHER:
        return []
    from referencing.exceptions import Unresolvable

    try:
        found = list(itertools.islice(validator.iter_errors(arguments), MAX_ERRORS + 1))
    except Unresolvable as err:
        raise ToolSchemaError(
            f"its schema's $ref {clip(str(err.ref))!r} is not inside the schema "
            "(only refs inside it are followed; nothing is fetched)"
        ) from None
    except RecursionError:
        raise ToolSchemaError(
            "its schema refers to itself without end (a $ref cycle), or the arguments nest "
            "deeper than it can check"
        ) from None
    problems = [
        clip(f"{'/'.join(map(str, e.absolute_path)) or 'arguments'}: {e.message}")
        for e in found[:MAX_ERRORS]
    ]
    if len(found) > MAX_ERRORS:
        problems.append("and more")
    return problems


def clip(text: str, limit: int = MAX_MESSAGE) -> str:
    """`text`, cut to `limit` characters and saying how long it was."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} characters)"
