"""From a definition file to a validated `AgentDefinition`, or a typed error naming the line.

Every problem of one file is found in one pass: the first is raised, the rest ride along in
`err.others`. Unknown keys (at any depth) are dropped with a warning, for forward
compatibility: a file written for a newer agentframe still loads.
"""

from __future__ import annotations

import difflib
import types
import typing
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from pydantic import ValidationError as PydanticValidationError

from ...contract.definition import FRONTMATTER_KEYS, AgentDefinition
from ...contract.errors import (
    AgentDefinitionError,
    InvalidFieldError,
    MissingFieldError,
    UnknownToolOverrideError,
)
from .frontmatter import Frontmatter, read_frontmatter, split_frontmatter
from .template import compiled

__all__ = ["definition_from_frontmatter", "load_definition", "parse_definition"]

_REQUIRED = ("name", "description")


def load_definition(path: Path, *, source: str = "code") -> AgentDefinition:
    """Read and validate one definition file."""
    return definition_from_frontmatter(read_frontmatter(path), source=source)


def parse_definition(
    text: str, path: Path | None = None, *, source: str = "code"
) -> AgentDefinition:
    """Validate the text of a definition file (`path` only names it in errors)."""
    return definition_from_frontmatter(split_frontmatter(text, path), source=source)


def definition_from_frontmatter(
    fm: Frontmatter,
    *,
    source: str = "code",
    warnings: Iterable[str] = (),
    skill_folders: Iterable[Path] = (),
) -> AgentDefinition:
    """Validate split frontmatter (a compat loader passes its translated keys, its own
    warnings and the folders its format keeps skills in)."""
    known, unknown = _split_known(AgentDefinition, fm.data, "")
    notes = [*warnings, *(_unknown_note(key, fm) for key in unknown)]
    raw_name = known.get("name")
    name = raw_name if isinstance(raw_name, str) else None
    problems: list[AgentDefinitionError] = []

    def problem(cls: type[AgentDefinitionError], key: str, message: str) -> None:
        line = fm.line_of(key) or 1  # a missing key: point at the frontmatter
        problems.append(cls(message, file=fm.file, line=line, field=key, name=name))

    for key in _REQUIRED:
        value = known.get(key)
        if value is None or (isinstance(value, str) and not value.strip()):
            problem(MissingFieldError, key, "required" if value is None else "must not be empty")
            known.pop(key, None)

    definition = None
    try:
        definition = AgentDefinition.model_validate(
            {
                **known,
                "prompt": fm.body,
                "path": fm.file,
                "source": source,
                "prompt_line": fm.body_line,
                "lines": fm.lines,
                "warnings": tuple(notes),
                "skill_folders": tuple(skill_folders),
            }
        )
    except PydanticValidationError as err:
        for error in err.errors(include_url=False):
            key = ".".join(str(part) for part in error["loc"])
            if error["type"] == "missing":
                if key not in _REQUIRED:  # required fields were reported above
                    problem(MissingFieldError, key, "required")
                continue
            problem(InvalidFieldError, key, _message(error))

    if definition is not None:
        problems.extend(_cross_checks(definition, fm))
    if problems:
        problems.sort(key=lambda p: p.line or 0)
        first = problems[0]
        first.others = tuple(problems[1:])
        raise first
    assert definition is not None
    return definition


def _cross_checks(definition: AgentDefinition, fm: Frontmatter) -> list[AgentDefinitionError]:
    """What one field says about another: overrides must name usable tools, a completion
    requirement must be callable, a `full` template must compile."""
    problems: list[AgentDefinitionError] = []
    file, name = fm.file, definition.name
    for key, tools in (
        ("toolNameOverrides", definition.tool_name_overrides),
        ("paramNameOverrides", definition.param_name_overrides),
    ):
        for tool in tools:
            if not definition.allows(tool):
                field = f"{key}.{tool}"
                problems.append(
                    UnknownToolOverrideError(
                        f"overrides tool {tool!r}, which this agent cannot use "
                        f"({_why_not(definition, tool)})",
                        line=fm.line_of(field),
                        field=field,
                        file=file,
                        name=name,
                    )
                )
    requirement = definition.completion_requirement
    if requirement is not None and not definition.allows(requirement.tool):
        field = "completionRequirement.tool"
        problems.append(
            InvalidFieldError(
                f"requires a call to {requirement.tool!r}, which this agent cannot use "
                f"({_why_not(definition, requirement.tool)}), so no run could ever complete",
                line=fm.line_of(field),
                field=field,
                file=file,
                name=name,
            )
        )
    if definition.prompt_mode == "full":
        try:
            compiled(definition.prompt, file=fm.file, first_line=fm.body_line, name=definition.name)
        except AgentDefinitionError as err:
            problems.append(err)
    return problems


def _why_not(definition: AgentDefinition, tool: str) -> str:
    if tool in definition.disallowed_tools:
        return "it is in disallowedTools"
    return f"it is not in tools: {', '.join(definition.tools or []) or '[]'}"


def _message(error: Any) -> str:
    """pydantic's message, made to speak about YAML."""
    kind, value, msg = error["type"], error.get("input"), str(error["msg"])
    if error["loc"] == ("name",) and kind == "string_pattern_mismatch":
        return f"{value!r} is not a valid name: use lowercase letters, digits and hyphens"
    if kind == "value_error":
        return msg.removeprefix("Value error, ")
    if not isinstance(value, dict | list) or kind.endswith("_type"):
        msg += f" (got {_yaml_kind(value)})"
    if kind == "string_type" and isinstance(value, bool | int | float):
        msg += "; quote it to keep it text"
    return msg


def _yaml_kind(value: Any) -> str:
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 40 else text[:37] + '...'}"


def _unknown_note(key: str, fm: Frontmatter) -> str:
    line = fm.line_of(key)
    where = f"{fm.file or '<definition>'}" + (f":{line}" if line else "")
    leaf = key.rsplit(".", 1)[-1]
    hint = ""
    if "." not in key:
        close = difflib.get_close_matches(leaf, sorted(FRONTMATTER_KEYS), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
    return f"{where}: {key}: unknown key, ignored{hint}"


# -- unknown keys, at any depth -------------------------------------------------------------------


def _split_known(model: type[BaseModel], data: Any, prefix: str) -> tuple[Any, list[str]]:
    """`data` without the keys `model` does not know (by alias), and the dotted paths of those
    keys. Values of the wrong shape are left alone for pydantic to report."""
    if not isinstance(data, dict):
        return data, []
    fields = {
        (info.alias or name): info.annotation
        for name, info in model.model_fields.items()
        if not info.exclude and name != "prompt"
    }
    known: dict[str, Any] = {}
    unknown: list[str] = []
    for key, value in data.items():
        path = f"{prefix}{key}"
        if not isinstance(key, str) or key not in fields:
            unknown.append(path)
            continue
        known[key], deeper = _split_value(fields[key], value, path)
        unknown.extend(deeper)
    return known, unknown


def _split_value(annotation: Any, value: Any, path: str) -> tuple[Any, list[str]]:
    target = _model_in(annotation)
    if target is not None:
        return _split_known(target, value, f"{path}.")
    if typing.get_origin(annotation) is dict and isinstance(value, dict):
        inner = _model_in(typing.get_args(annotation)[1])
        if inner is not None:
            result: dict[Any, Any] = {}
            unknown: list[str] = []
            for key, item in value.items():
                result[key], deeper = _split_known(inner, item, f"{path}.{key}.")
                unknown.extend(deeper)
            return result, unknown
    return value, []


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The model class in `Model` or `Model | None`, else None."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        for arg in typing.get_args(annotation):
            if isinstance(arg, type) and issubclass(arg, BaseModel):
                return arg
    return None
