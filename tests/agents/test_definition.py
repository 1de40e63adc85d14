"""What the loop asks of a definition: allow/deny, names on the wire, override checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentframe_core.contract.definition import AgentDefinition, Backoff
from agentframe_core.contract.errors import InvalidFieldError, UnknownToolOverrideError
from agentframe_core.contract.tools import Tool
from agentframe_core.engine.definitions import load_definition

VALID = Path(__file__).parent / "definitions" / "valid"


def schema(*names: str) -> dict[str, object]:
    return {
        "type": "object",
        "properties": {name: {"type": "string"} for name in names},
        "required": list(names),
    }


TOOLS = [
    Tool(name="read_file", parameters=schema("path", "encoding")),
    Tool(name="grep", parameters=schema("pattern")),
    Tool(name="bash", parameters=schema("command"), writes=True),
    Tool(name="submit", parameters=schema("answer"), terminal=True),
    Tool(name="write_file", parameters=schema("path", "text"), writes=True),
]


@pytest.fixture
def agent() -> AgentDefinition:
    return load_definition(VALID / "every-key.md")


def test_deny_wins_over_allow(agent: AgentDefinition) -> None:
    assert agent.allows("read_file") and agent.allows("submit")
    assert not agent.allows("bash")  # allowed and denied: denied
    assert not agent.allows("write_file")  # not in the allowlist


def test_tool_names_filters_and_renames_in_order(agent: AgentDefinition) -> None:
    available = [t.name for t in TOOLS]
    assert agent.tool_names(available) == {
        "read_file": "Read",
        "grep": "Search",
        "submit": "submit",
    }


def test_names_round_trip(agent: AgentDefinition) -> None:
    for tool in ("read_file", "grep", "submit"):
        assert agent.canonical_tool_name(agent.wire_tool_name(tool)) == tool
    assert agent.canonical_tool_name("unknown") == "unknown"
    arguments = {"path": "a.txt", "encoding": "utf-8"}
    wire = agent.wire_arguments("read_file", arguments)
    assert wire == {"file_path": "a.txt", "encoding": "utf-8"}
    assert agent.canonical_arguments("read_file", wire) == arguments
    assert agent.wire_arguments("grep", {"pattern": "x"}) == {"pattern": "x"}


def test_wire_parameters_rename_the_schema(agent: AgentDefinition) -> None:
    renamed = agent.wire_parameters("read_file", TOOLS[0].parameters)
    assert set(renamed["properties"]) == {"file_path", "encoding"}
    assert renamed["required"] == ["file_path", "encoding"]
    assert TOOLS[0].parameters["required"] == ["path", "encoding"]  # the original is untouched
    assert agent.wire_parameters("grep", TOOLS[1].parameters) == TOOLS[1].parameters


def test_check_overrides_accepts_known_tools(agent: AgentDefinition) -> None:
    agent.check_overrides(TOOLS)


def test_check_overrides_rejects_a_tool_the_stack_lacks(agent: AgentDefinition) -> None:
    with pytest.raises(UnknownToolOverrideError) as caught:
        agent.check_overrides([t for t in TOOLS if t.name != "grep"])
    err = caught.value
    assert err.field == "toolNameOverrides.grep"
    assert (err.file, err.line) == (VALID / "every-key.md", 15)
    assert "'grep' is unknown" in err.message and "read_file, submit" in err.message


def test_check_overrides_rejects_an_unknown_parameter() -> None:
    agent = AgentDefinition(
        name="a", description="b", param_name_overrides={"grep": {"regex": "re"}}
    )
    with pytest.raises(
        UnknownToolOverrideError, match="no parameter 'regex'; its parameters: pattern"
    ):
        agent.check_overrides(TOOLS)


def test_check_overrides_rejects_a_wire_name_clash() -> None:
    agent = AgentDefinition(name="a", description="b", tool_name_overrides={"grep": "bash"})
    with pytest.raises(InvalidFieldError, match="'grep' and 'bash' would both be called 'bash'"):
        agent.check_overrides(TOOLS)
    # the clash disappears when the other tool is denied
    denied = agent.model_copy(update={"disallowed_tools": ["bash"]})
    denied.check_overrides(TOOLS)


def test_backoff_delays() -> None:
    backoff = Backoff(max_retries=5, base_delay_ms=100, max_delay_ms=350)
    assert [backoff.delay(n) for n in range(1, 6)] == [0.1, 0.2, 0.35, 0.35, 0.35]


def test_definitions_are_immutable(agent: AgentDefinition) -> None:
    with pytest.raises(ValueError, match="frozen"):
        agent.max_turns = 3  # type: ignore[misc]


def test_dump_uses_frontmatter_keys_and_hides_provenance(agent: AgentDefinition) -> None:
    dumped = agent.model_dump(by_alias=True)
    assert "maxTurns" in dumped and "toolNameOverrides" in dumped
    assert not {"path", "source", "lines", "warnings", "prompt_line"} & set(dumped)
