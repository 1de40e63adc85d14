"""Relative paths in a part's options mean "next to the config file", as `agents:` does.

Which options are paths is read from the part's options model: every field typed `Path` (or a
`PurePath` kind), also inside `X | None`, lists, tuples, dict values and nested models. The raw
YAML values are rewritten before validation, so the part receives absolute paths and works
the same from any working directory. Absolute paths, `~` paths and values that are not
strings are left alone; so are defaults, which the part's own docs define.
"""

from __future__ import annotations

import types
from collections.abc import Mapping
from pathlib import Path, PurePath
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel

__all__ = ["resolve_option_paths"]


def resolve_option_paths(
    model: type[BaseModel], raw: Mapping[str, Any], base: Path
) -> dict[str, Any]:
    """`raw` (a config block, `use` removed) with its relative path values joined to `base`."""
    fields = {}
    for name, info in model.model_fields.items():
        fields[name] = info.annotation
        if info.alias:
            fields[info.alias] = info.annotation
    return {
        key: _resolve(fields[key], value, base) if key in fields else value
        for key, value in raw.items()
    }


def _resolve(annotation: Any, value: Any, base: Path) -> Any:
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType):
        for option in get_args(annotation):
            resolved = _resolve(option, value, base)
            if resolved is not value:
                return resolved
        return value
    if origin in (list, tuple, set, frozenset) and isinstance(value, list):
        args = [a for a in get_args(annotation) if a is not Ellipsis] or [Any]
        return [_resolve(args[min(i, len(args) - 1)], v, base) for i, v in enumerate(value)]
    if origin is dict and isinstance(value, dict):
        item = get_args(annotation)[1] if get_args(annotation) else Any
        return {k: _resolve(item, v, base) for k, v in value.items()}
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return resolve_option_paths(annotation, value, base) if isinstance(value, dict) else value
    if isinstance(annotation, type) and issubclass(annotation, PurePath):
        return _joined(value, base)
    return value


def _joined(value: Any, base: Path) -> Any:
    if not isinstance(value, str) or not value or value.startswith("~"):
        return value
    if Path(value).is_absolute():
        return value
    return str(base / value)
