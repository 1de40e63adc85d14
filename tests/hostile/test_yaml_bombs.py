"""YAML alias bombs and self-referencing anchors: a named error with file and line, fast and
small, in a config and in an agent definition (which is skipped, never hiding the others)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentframe_core.contract.errors import AgentParseError, ConfigError
from agentframe_core.support.yamlsource import load_yaml_text


def bomb(levels: int = 9, key: str = "x") -> str:
    """The classic billion laughs: each level lists the previous one nine times."""
    lines = ['a0: &a0 ["lol"]']
    for level in range(1, levels + 1):
        refs = ", ".join([f"*a{level - 1}"] * 9)
        lines.append(f"a{level}: &a{level} [{refs}]")
    return f"{key}:\n" + "\n".join(f"  {line}" for line in lines) + "\n"


def test_a_bomb_is_refused_by_the_loader_with_its_line():
    with pytest.raises(ConfigError) as caught:
        load_yaml_text(bomb(), Path("f.yaml"))
    [issue] = caught.value.issues
    assert "alias" in issue.message and "limit" in issue.message
    assert issue.line is not None and 3 <= issue.line <= 11


def test_a_self_referencing_anchor_is_refused_by_name():
    with pytest.raises(ConfigError) as caught:
        load_yaml_text("ok: 1\nx: &a [1, *a]\n", Path("f.yaml"))
    [issue] = caught.value.issues
    assert "refers to itself" in issue.message and issue.line == 2


def test_a_deeply_nested_document_is_refused_by_name():
    with pytest.raises(ConfigError) as caught:
        load_yaml_text("x: " + "[" * 200 + "]" * 200 + "\n", Path("f.yaml"))
    assert "nested" in caught.value.issues[0].message


def test_ordinary_aliases_still_work():
    located = load_yaml_text("base: &b {use: memory}\nstore: *b\nmore: {<<: *b, x: 1}\n", None)
    assert located.data["store"] == {"use": "memory"}
    assert located.data["more"] == {"use": "memory", "x": 1}


@pytest.mark.parametrize("key", ["adapter", "no_such_key"])
def test_a_bomb_in_the_config_is_a_named_error(hostile, tmp_path: Path, key: str):
    (tmp_path / "agentframe.yaml").write_text(bomb(key=key))
    done = hostile("config", "check")
    assert done.returncode == 2
    assert "agentframe.yaml:" in done.stderr and "alias" in done.stderr


def test_a_self_referencing_anchor_in_the_config_is_a_named_error(hostile, tmp_path):
    (tmp_path / "agentframe.yaml").write_text("store: memory\nx: &a [*a]\n")
    done = hostile("config", "show")
    assert done.returncode == 2
    assert "agentframe.yaml:2: " in done.stderr and "refers to itself" in done.stderr


def frontmatter(name: str, extra: str = "") -> str:
    return f"---\nname: {name}\ndescription: test agent\n{extra}---\nYou help.\n"


def test_a_bomb_in_one_agent_file_skips_that_file_only(hostile, tmp_path: Path):
    folder = tmp_path / ".agentframe" / "agents"
    folder.mkdir(parents=True)
    (folder / "bomb.md").write_text(frontmatter("bomb", bomb(key="extra")))
    (folder / "good.md").write_text(frontmatter("good"))
    done = hostile("agents", "list")
    assert done.returncode == 0, done.stderr
    assert "good" in done.stdout and "planner" in done.stdout
    assert "bomb.md:" in done.stderr and "alias" in done.stderr
    checked = hostile("agents", "check", str(folder / "bomb.md"))
    assert checked.returncode == 1 and "bomb.md:" in checked.stdout


def test_a_bomb_in_a_frontmatter_is_a_parse_error():
    from agentframe_core.engine.definitions import parse_definition

    with pytest.raises(AgentParseError) as caught:
        parse_definition(frontmatter("bomb", "x: &a [*a]\n"), Path("bomb.md"))
    assert caught.value.line == 4 and "refers to itself" in caught.value.message


# -- small items: keys given twice, and the line of a syntax error ----------------------------


def test_a_key_given_twice_is_an_error_naming_both_lines():
    with pytest.raises(ConfigError) as caught:
        load_yaml_text("store: memory\nlimits:\n  max_turns: 3\n  max_turns: 9\n", None)
    [issue] = caught.value.issues
    assert issue.line == 4 and issue.message == "duplicate key 'max_turns' (first given on line 3)"


def test_a_key_given_twice_in_a_frontmatter_names_the_file_line():
    from agentframe_core.engine.definitions import parse_definition

    with pytest.raises(AgentParseError) as caught:
        parse_definition("---\nname: a\ndescription: b\nname: c\n---\nbody\n", Path("a.md"))
    assert caught.value.line == 4 and "first given on line 2" in caught.value.message


def test_a_yaml_error_names_the_line_where_the_broken_construct_starts(tmp_path: Path):
    with pytest.raises(ConfigError) as caught:
        load_yaml_text("adapter: scripted\nstore: memory\ncontext: [verbatim\n", None)
    assert caught.value.issues[0].line == 3
    from agentframe_core.engine.definitions import parse_definition

    with pytest.raises(AgentParseError) as parsed:
        parse_definition('---\nname: a\ndescription: "open\n---\nbody\n', Path("a.md"))
    assert parsed.value.line == 3
