"""Every path argument stays in the project folder: `../`, absolute paths outside and
symbolic links out are refused alike, as error results (the run goes on), and nothing
outside is read, listed, searched or written."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from agentframe_core import RunContext

SECRET = "the secret outside"


@pytest.fixture
def outside(project: Path) -> Path:
    folder = project.parent / "outside"
    folder.mkdir()
    (folder / "secret.txt").write_text(f"{SECRET}\n")
    (project / "link-out").symlink_to(folder)  # a folder link out
    (project / "secret-link.txt").symlink_to(folder / "secret.txt")  # a file link out
    (project / "dangling").symlink_to(folder / "new.txt")  # a link to a file not yet there
    return folder


def escapes(outside: Path) -> list[str]:
    return [
        "../outside/secret.txt",
        "src/../../outside/secret.txt",
        str(outside / "secret.txt"),
        "/etc/passwd",
        "link-out/secret.txt",
        "secret-link.txt",
        "~/.bashrc",
    ]


CALLS: list[tuple[str, str, dict[str, Any]]] = [
    ("Read", "file_path", {}),
    ("Write", "file_path", {"content": "pwned"}),
    ("Edit", "file_path", {"old_string": "secret", "new_string": "pwned"}),
    ("MultiEdit", "file_path", {"edits": [{"old_string": "secret", "new_string": "pwned"}]}),
    ("Grep", "path", {"pattern": "secret"}),
    ("Glob", "path", {"pattern": "*"}),
    ("LS", "path", {}),
]


@pytest.mark.parametrize(("name", "key", "extra"), CALLS, ids=[c[0] for c in CALLS])
async def test_every_escape_is_an_error_result_and_touches_nothing(
    call: Any, outside: Path, name: str, key: str, extra: dict[str, Any]
) -> None:
    for path in escapes(outside):
        result = await call(name, **{key: path, **extra})
        assert result.is_error, f"{name}({path}) was not refused: {result.content}"
        assert "must be inside" in result.content or "not a directory" in result.content
        assert SECRET not in result.content
    assert (outside / "secret.txt").read_text() == f"{SECRET}\n"
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]


async def test_a_dangling_link_out_is_not_written_through(call: Any, outside: Path) -> None:
    result = await call("Write", file_path="dangling", content="pwned")
    assert result.is_error and "must be inside" in result.content
    assert not (outside / "new.txt").exists()


async def test_searches_do_not_follow_links_out(call: Any, outside: Path, project: Path) -> None:
    grep = await call("Grep", pattern="secret", output_mode="content")
    assert SECRET not in grep.content and not grep.is_error
    glob = await call("Glob", pattern="**/*.txt")
    assert glob.content.split("\n") == ["notes.txt"]
    ls = await call("LS")
    assert "secret.txt" not in ls.content.replace("secret-link.txt", "")


@pytest.mark.parametrize("pattern", ["../outside/*", "../**", "src/../../*", "/etc/*"])
async def test_glob_patterns_that_climb_out_are_refused(
    call: Any, outside: Path, pattern: str
) -> None:
    result = await call("Glob", pattern=pattern)
    assert result.is_error and "refused" in result.content


async def test_links_inside_the_project_work(call: Any, project: Path) -> None:
    (project / "alias.txt").symlink_to(project / "notes.txt")
    read = await call("Read", file_path="alias.txt")
    assert "two" in read.content and not read.is_error
    written = await call("Write", file_path="alias.txt", content="new\n")
    assert not written.is_error
    assert (project / "alias.txt").is_symlink()  # the link kept, its target replaced
    assert (project / "notes.txt").read_text() == "new\n"


async def test_absolute_paths_inside_the_project_work(call: Any, project: Path) -> None:
    result = await call("Read", file_path=str(project / "notes.txt"))
    assert result.content.startswith("     1→one")


async def test_the_root_defaults_to_the_working_directory(
    project: Path, monkeypatch: pytest.MonkeyPatch, ctx: RunContext
) -> None:
    from agentframe_claude_tools import ClaudeTools

    from agentframe_core import ToolCall

    monkeypatch.chdir(project / "src")
    tools = ClaudeTools()
    assert tools.project.root == (project / "src").resolve()
    result = await tools.dispatch(ToolCall("1", "Read", {"file_path": "../notes.txt"}), ctx)
    assert result.is_error and "must be inside" in result.content
    assert os.getcwd() == str(project / "src")
