"""A part's option that is itself a part block (`AdapterPart`): validated like a top-level
block (installed plugins, file, line and path), built on demand, shown as a block, described
in the config's JSON Schema."""

from __future__ import annotations

import types
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

from agentframe_core import (
    AdapterPart,
    ConfigError,
    PartConfig,
    PluginHost,
    Register,
    hookimpl,
    load_config,
)
from agentframe_core.testing import ScriptedAdapter


class Answering(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    policy: str = "auto"
    adapter: AdapterPart | None = None


class ToolOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    summariser: AdapterPart | None = None
    answering: Answering = Answering()


def _host() -> PluginHost:
    def agentframe_tool_dispatchers(register: Register) -> None:
        register("nesting", lambda options: options, options=ToolOptions)

    plugin: Any = types.ModuleType("nesting_plugin")
    plugin.agentframe_tool_dispatchers = hookimpl(agentframe_tool_dispatchers)
    host = PluginHost()
    host.add("nesting", plugin)
    return host


def write(tmp_path: Path, tools: str) -> Path:
    path = tmp_path / "agentframe.yaml"
    path.write_text("adapter: scripted\nstore: memory\ntools:\n" + tools)
    return path


def test_a_nested_block_becomes_a_part_config_that_builds(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "  - use: nesting\n"
        "    summariser: {use: scripted, replies: [short]}\n"
        "    answering:\n"
        "      adapter: scripted\n",
    )
    options = load_config(_host(), path).tools[0].options
    assert isinstance(options.summariser, PartConfig)
    assert options.summariser.path == "tools[0].summariser" and options.summariser.line == 5
    built = options.summariser.build()
    assert isinstance(built, ScriptedAdapter) and built.replies == ["short"]
    assert options.answering.adapter.name == "scripted"
    shown = options.answering.model_dump(mode="json")  # as `config show` prints it
    assert shown["policy"] == "auto"
    assert shown["adapter"]["use"] == "scripted" and shown["adapter"]["replies"] == []


def test_a_wrong_nested_block_is_located(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "  - use: nesting\n"
        "    summariser: {use: no-such-model}\n"
        "    answering:\n"
        "      adapter: {use: scripted, replise: []}\n",
    )
    with pytest.raises(ConfigError) as caught:
        load_config(_host(), path)
    found = {(issue.path, issue.line) for issue in caught.value.issues}
    assert ("tools[0].summariser.use", 5) in found
    assert ("tools[0].answering.adapter.replise", 7) in found
    assert "did you mean 'replies'" in str(caught.value)


def test_the_schema_describes_a_nested_block_as_an_adapter() -> None:
    from agentframe_core.assembly.schema import config_schema

    schema = config_schema(_host())
    assert schema["$defs"]["part.adapter"] == schema["properties"]["adapter"]
    ref = {"$ref": "#/$defs/part.adapter"}
    (answering,) = [body for name, body in schema["$defs"].items() if name.endswith("Answering")]
    assert answering["properties"]["adapter"]["anyOf"][0] == ref
    assert "x-agentframe-part" not in str(schema)
