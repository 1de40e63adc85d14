"""The JSON Schema of `agentframe.yaml`, for editors: every installed part's options."""

from __future__ import annotations

import json
from typing import Any

from ..contract.configtypes import Limits
from ..contract.extensions import STACK_POINTS
from ..contract.registry import Kind, PartSpec
from .plugins import PluginHost

__all__ = ["config_schema"]


def config_schema(host: PluginHost) -> dict[str, Any]:
    definitions: dict[str, Any] = {}

    def part(spec: PartSpec) -> dict[str, Any]:
        prefix = f"{spec.kind.value}.{spec.name}."
        if spec.options is None:
            body: dict[str, Any] = {"type": "object"}
        else:
            body = _hoist(spec.options.model_json_schema(by_alias=True), prefix, definitions)
        body.setdefault("properties", {})
        body["properties"] = {"use": {"const": spec.name}, **body["properties"]}
        body["required"] = ["use", *body.get("required", [])]
        body["title"] = f"{spec.kind.value}: {spec.name}"
        body.setdefault("additionalProperties", False)
        return body

    def choice(kind: Kind) -> dict[str, Any]:
        specs = host.parts(kind)
        options = [part(spec) for spec in specs]
        if specs:  # `store: memory` is short for `store: {use: memory}`
            options.append({"enum": [spec.name for spec in specs]})
        return {"anyOf": options} if options else {"type": "object"}

    stack_properties: dict[str, Any] = {
        point.kind.value: (
            {"type": "array", "items": choice(point.kind)} if point.many else choice(point.kind)
        )
        for point in STACK_POINTS
    }
    # what an option typed `AdapterPart` (a model inside a part's options) refers to
    definitions["part.adapter"] = stack_properties[Kind.ADAPTER.value]
    stack_properties |= {
        "agents": {
            "type": "array",
            "items": {"type": "string"},
            "description": "Extra folders of agent definitions.",
        },
        "limits": _hoist(Limits.model_json_schema(), "limits.", definitions),
    }
    profile = {"type": "object", "properties": stack_properties, "additionalProperties": False}
    return _nested_parts(
        {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "agentframe.yaml",
            "type": "object",
            "properties": {
                **stack_properties,
                "profile": {"type": "string", "description": "The profile to apply."},
                "profiles": {"type": "object", "additionalProperties": profile},
            },
            "additionalProperties": False,
            "$defs": definitions,
        }
    )


def _hoist(schema: dict[str, Any], prefix: str, definitions: dict[str, Any]) -> dict[str, Any]:
    """Move a model schema's `$defs` into the shared ones, renaming to avoid clashes."""
    local = schema.pop("$defs", {})
    text = json.dumps(schema)
    for name in local:
        text = text.replace(f'"#/$defs/{name}"', f'"#/$defs/{prefix}{name}"')
    for name, body in local.items():
        body_text = json.dumps(body)
        for other in local:
            body_text = body_text.replace(f'"#/$defs/{other}"', f'"#/$defs/{prefix}{other}"')
        definitions[prefix + name] = json.loads(body_text)
    result: dict[str, Any] = json.loads(text)
    return result


def _nested_parts(schema: dict[str, Any]) -> dict[str, Any]:
    """An option typed `AdapterPart` refers to the adapter choice of the whole config."""
    text = json.dumps(schema).replace(
        '{"x-agentframe-part": "adapter"}', '{"$ref": "#/$defs/part.adapter"}'
    )
    result: dict[str, Any] = json.loads(text)
    return result
