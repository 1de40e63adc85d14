"""Options that are themselves part blocks (`PartOf`, e.g. `AdapterPart`): an MCP toolset's
`sampling.adapter`, say. They are found in the options model (nested models and `X | None`
included) and each is validated as a top-level block is, against the installed plugins, its
errors located in the same file."""

from __future__ import annotations

import types
from collections.abc import Callable, Mapping
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel

from ..contract.configtypes import PartConfig, PartOf
from ..contract.registry import Kind
from ..support.yamlsource import YamlPath

__all__ = ["nested_parts"]

#: Validates one nested block of `kind` at `path`: its PartConfig, or None (issues recorded).
ValidateBlock = Callable[[Kind, Any, YamlPath], PartConfig | None]


def nested_parts(
    model: type[BaseModel], raw: Mapping[str, Any], path: YamlPath, validate: ValidateBlock
) -> dict[str, Any]:
    """`raw` with every nested part block replaced by its PartConfig (or None when invalid)."""
    found = dict(raw)
    for name, info in model.model_fields.items():
        key = name if name in found else info.alias
        if key is None or found.get(key) is None:
            continue
        kind = _kind(info.metadata) or _kind_in(info.annotation)
        if kind is not None:
            found[key] = validate(kind, found[key], (*path, key))
            continue
        inner = _model_in(info.annotation)
        if inner is not None and isinstance(found[key], Mapping):
            found[key] = nested_parts(inner, found[key], (*path, key), validate)
    return found


def _kind(metadata: list[Any] | tuple[Any, ...]) -> Kind | None:
    return next((m.kind for m in metadata if isinstance(m, PartOf)), None)


def _kind_in(annotation: Any) -> Kind | None:
    """The `PartOf` kind of an `Annotated[...]` type, also inside `X | None`."""
    if get_origin(annotation) is Annotated:
        return _kind(annotation.__metadata__)
    if get_origin(annotation) in (Union, types.UnionType):
        return next(filter(None, map(_kind_in, get_args(annotation))), None)
    return None


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The options model a field holds (also inside `X | None`), to look for parts in."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if get_origin(annotation) in (Union, types.UnionType):
        return next(filter(None, map(_model_in, get_args(annotation))), None)
    return None
