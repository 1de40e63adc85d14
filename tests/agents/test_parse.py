"""Definition files to definitions, or to a typed error naming file, line and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentframe_core.contract.definition import AgentDefinition, Backoff
from agentframe_core.contract.errors import (
    AgentDefinitionError,
    AgentframeError,
    AgentParseError,
    AgentTemplateError,
    InvalidFieldError,
    MissingDelimiterError,
    MissingFieldError,
    UnknownToolOverrideError,
)
from agentframe_core.engine.definitions import load_definition, parse_definition

DEFINITIONS = Path(__file__).parent / "definitions"
VALID = DEFINITIONS / "valid"
BROKEN = DEFINITIONS / "broken"


def test_every_key() -> None:
    agent = load_definition(VALID / "every-key.md", source="project")
    assert agent.name == "every-key"
    assert agent.description == "Uses every key the format has."
    assert agent.prompt == "You check everything twice."
    assert agent.prompt_line == 35  # the body's first line, after the blank line
    assert agent.prompt_mode == "extend"
    assert agent.tools == ["read_file", "grep", "bash", "submit"]
    assert agent.disallowed_tools == ["bash"]
    assert agent.model == "qwen2.5-coder-7b" and agent.adapter_model == "qwen2.5-coder-7b"
    assert agent.max_turns == 12
    assert agent.permission_mode == "acceptEdits"
    assert agent.skills == ["./skills/code-review"]
    assert agent.agents_md is False
    assert agent.output_format == "concise"
    assert agent.tool_name_overrides == {"read_file": "Read", "grep": "Search"}
    assert agent.param_name_overrides == {"read_file": {"path": "file_path"}}
    requirement = agent.completion_requirement
    assert requirement is not None
    assert requirement.tool == "submit"
    assert requirement.reminder == "Call submit with your final answer."
    assert requirement.recovery == Backoff(max_retries=2, base_delay_ms=100, max_delay_ms=250)
    grep = agent.tool_config["grep"]
    assert grep.timeout_secs == 5
    assert grep.retry == Backoff(max_retries=4, base_delay_ms=10, max_delay_ms=40)
    assert agent.path == VALID / "every-key.md"
    assert agent.source == "project"
    assert agent.warnings == ()
    assert agent.lines["toolNameOverrides.grep"] == 15


def test_minimal_gets_the_defaults() -> None:
    agent = load_definition(VALID / "minimal.md")
    assert agent.model_dump(exclude={"name", "description", "prompt"}) == AgentDefinition(
        name="x", description="y"
    ).model_dump(exclude={"name", "description", "prompt"})
    assert agent.prompt == "Be brief."
    assert agent.tools is None and agent.allows("anything")


def test_comma_separated_tools_and_inherit() -> None:
    agent = load_definition(VALID / "comma-tools.md")
    assert agent.tools == ["read_file", "grep", "bash"]
    assert agent.disallowed_tools == ["bash", "write_file"]
    assert agent.model == "inherit" and agent.adapter_model is None
    assert [t for t in ("read_file", "grep", "bash", "write_file") if agent.allows(t)] == [
        "read_file",
        "grep",
    ]


def test_empty_allowlist_allows_nothing() -> None:
    agent = load_definition(VALID / "no-tools.md")
    assert agent.tools == [] and not agent.allows("read_file")


def test_unknown_keys_are_warnings_at_any_depth_and_ignored() -> None:
    agent = load_definition(VALID / "unknown-keys.md")
    file = VALID / "unknown-keys.md"
    assert agent.warnings == (
        f"{file}:4: color: unknown key, ignored",
        f"{file}:5: max_turns: unknown key, ignored (did you mean 'maxTurns'?)",
        f"{file}:10: toolConfig.grep.retry.maxRetry: unknown key, ignored",
        f"{file}:12: toolConfig.grep.timeout: unknown key, ignored",
    )
    # the snake_case spelling is not applied behind the warning's back
    assert agent.max_turns == 5
    retry = agent.tool_config["grep"].retry
    assert retry is not None and retry.max_retries == 1
    assert agent.tool_config["grep"].timeout_secs is None


#: file -> (error class, line, field, words the message must contain)
BROKEN_EXPECTED: dict[str, tuple[type[AgentDefinitionError], int, str, str]] = {
    "no-delimiters": (MissingDelimiterError, 1, "", "first line must be `---`"),
    "unclosed": (MissingDelimiterError, 1, "", "never closed"),
    "bad-yaml": (AgentParseError, 3, "", "quoted scalar"),
    "not-a-mapping": (AgentParseError, 2, "", "must be a mapping"),
    "max-turns-text": (InvalidFieldError, 4, "maxTurns", "valid integer (got str 'many')"),
    "max-turns-zero": (InvalidFieldError, 5, "maxTurns", "greater than 0"),
    "name-is-boolean": (InvalidFieldError, 3, "name", "quote it"),
    "name-uppercase": (InvalidFieldError, 2, "name", "lowercase letters, digits and hyphens"),
    "bad-prompt-mode": (InvalidFieldError, 4, "promptMode", "'extend' or 'full'"),
    "tools-mapping": (InvalidFieldError, 4, "tools", "valid list (got a mapping)"),
    "missing-name": (MissingFieldError, 1, "name", "required"),
    "empty-description": (MissingFieldError, 3, "description", "must not be empty"),
    "override-unknown-tool": (
        UnknownToolOverrideError,
        7,
        "toolNameOverrides.bash",
        "not in tools: read_file",
    ),
    "override-denied-tool": (
        UnknownToolOverrideError,
        6,
        "paramNameOverrides.bash",
        "in disallowedTools",
    ),
    "override-same-wire-name": (InvalidFieldError, 4, "toolNameOverrides", "both map to 'Read'"),
    "override-bad-wire-name": (
        InvalidFieldError,
        5,
        "toolNameOverrides.read_file",
        "not a valid model-facing name",
    ),
    "completion-denied": (
        InvalidFieldError,
        6,
        "completionRequirement.tool",
        "no run could ever complete",
    ),
    "template-syntax": (AgentTemplateError, 8, "template", "template line 3: syntax error"),
    "template-unknown-variable": (
        AgentTemplateError,
        8,
        "template",
        "template line 3: unknown variable 'user_name'",
    ),
}


def test_every_broken_file_has_an_expectation() -> None:
    assert {p.stem for p in BROKEN.glob("*.md")} == {*BROKEN_EXPECTED, "many-problems"}


@pytest.mark.parametrize("stem", sorted(BROKEN_EXPECTED))
def test_broken_file(stem: str) -> None:
    cls, line, field, words = BROKEN_EXPECTED[stem]
    path = BROKEN / f"{stem}.md"
    with pytest.raises(AgentDefinitionError) as caught:
        load_definition(path)
    err = caught.value
    assert type(err) is cls
    assert isinstance(err, AgentframeError)
    assert (err.file, err.line, err.field) == (path, line, field)
    assert words in err.message
    assert str(err).startswith(f"{path}:{line}: ")
    assert err.others == ()


def test_parse_errors_share_a_base() -> None:
    """Bad YAML, missing delimiters and wrong types are all parse errors."""
    assert issubclass(MissingDelimiterError, AgentParseError)
    assert issubclass(InvalidFieldError, AgentParseError)
    assert not issubclass(MissingFieldError, AgentParseError)


def test_all_problems_of_a_file_at_once() -> None:
    path = BROKEN / "many-problems.md"
    with pytest.raises(MissingFieldError) as caught:
        load_definition(path)
    found = [(type(e).__name__, e.line, e.field) for e in caught.value.all()]
    assert found == [
        ("MissingFieldError", 1, "description"),
        ("InvalidFieldError", 3, "maxTurns"),
        ("InvalidFieldError", 4, "promptMode"),
        ("InvalidFieldError", 5, "agentsMd"),
    ]
    assert all(e.name == "many-problems" for e in caught.value.all())


def test_template_errors_name_template_and_file_lines() -> None:
    with pytest.raises(AgentTemplateError) as caught:
        load_definition(BROKEN / "template-unknown-variable.md")
    assert caught.value.template_line == 3 and caught.value.line == 8


def test_strict_scalars() -> None:
    """YAML `true` is not 1 turn, `"yes"` is not a boolean, 2.5 turns is not 2."""
    for key, value in [
        ("maxTurns", "true"),
        ("maxTurns", "2.5"),
        ("agentsMd", '"yes"'),
        ("agentsMd", "1"),
    ]:
        text = f"---\nname: a\ndescription: b\n{key}: {value}\n---\n"
        with pytest.raises(InvalidFieldError) as caught:
            parse_definition(text)
        assert caught.value.field == key and caught.value.line == 4


def test_byte_order_mark_and_crlf() -> None:
    text = "\ufeff---\r\nname: crlf\r\ndescription: Windows\r\n---\r\n\r\nLine one.\r\nTwo.\r\n"
    agent = parse_definition(text)
    assert agent.prompt == "Line one.\nTwo." and agent.prompt_line == 6


def test_empty_frontmatter_is_missing_fields() -> None:
    with pytest.raises(MissingFieldError) as caught:
        parse_definition("---\n---\nBody\n")
    assert [e.field for e in caught.value.all()] == ["name", "description"]


def test_invalid_dates_are_parse_errors_not_crashes() -> None:
    """PyYAML builds `2024-13-45` with datetime, which raises ValueError."""
    with pytest.raises(AgentParseError, match="invalid YAML"):
        parse_definition("---\nname: a\ndescription: b\nsince: 2024-13-45\n---\n")


def test_unreadable_and_non_utf8_files(tmp_path: Path) -> None:
    binary = tmp_path / "latin1.md"
    binary.write_bytes("---\nname: caf\xe9\n---\n".encode("latin-1"))
    with pytest.raises(AgentParseError, match="not UTF-8") as caught:
        load_definition(binary)
    assert caught.value.file == binary
    with pytest.raises(AgentParseError, match="cannot read"):
        load_definition(tmp_path / "missing.md")


def test_empty_body_is_allowed_and_leading_blank_lines_dropped() -> None:
    agent = parse_definition("---\nname: a\ndescription: b\n---\n\n\n  indented\n\n")
    assert agent.prompt == "  indented" and agent.prompt_line == 7
    assert parse_definition("---\nname: a\ndescription: b\n---").prompt == ""
