"""Glob and Grep on a real tree (a copy of seven packages of Python's standard library),
checked against the system's `find` and `grep`; Grep's options as Claude Code passes them;
a pattern that backtracks for ever stops at the deadline."""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

PATTERN = r"def [a-z_]+\("


@pytest.fixture
def tree(project: Path) -> Path:
    stdlib = Path(shutil.__file__).parent
    for package in ("asyncio", "email", "json", "http", "concurrent", "logging", "xml"):
        shutil.copytree(
            stdlib / package,
            project / "tree" / package,
            ignore=shutil.ignore_patterns("__pycache__"),
        )
    return project / "tree"


def _system(*command: str, cwd: Path) -> list[str]:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
    return sorted(filter(None, done.stdout.split("\n")))


async def test_glob_finds_what_find_finds(call: Any, tree: Path, project: Path) -> None:
    result = await call("Glob", pattern="**/*.py", path="tree")
    listed = result.content.split("\n")
    expected = _system("find", "tree", "-name", "*.py", cwd=project)
    assert len(expected) > 100  # over Claude Code's cap: the newest 100, and a note
    assert listed[-1].startswith("(Results are truncated.")
    assert len(listed[:-1]) == 100 and set(listed[:-1]) <= set(expected)
    few = await call("Glob", pattern="tree/json/*.py")
    assert sorted(few.content.split("\n")) == _system(
        "find", "tree/json", "-maxdepth", "1", "-name", "*.py", cwd=project
    )


async def test_glob_orders_newest_first_and_reads_patterns_as_claude_code(
    call: Any, project: Path
) -> None:
    import os

    for n, name in enumerate(["a.txt", "b.txt", "c.md", "deep/d.txt"]):
        (project / name).parent.mkdir(exist_ok=True)
        (project / name).write_text(name)
        os.utime(project / name, (1_000_000 + n, 1_000_000 + n))
    top = await call("Glob", pattern="*.txt")
    assert top.content.split("\n") == ["notes.txt", "b.txt", "a.txt"]  # notes.txt is newest
    deep = await call("Glob", pattern="**/*.{txt,md}")
    assert set(deep.content.split("\n")) == {"notes.txt", "a.txt", "b.txt", "c.md", "deep/d.txt"}
    none = await call("Glob", pattern="*.rs")
    assert none.content == "No files found"


async def test_grep_files_count_and_content_agree_with_grep(
    call: Any, tree: Path, project: Path, ctx: Any
) -> None:
    files = await call("Grep", pattern=PATTERN, path="tree", head_limit=10_000)
    header, *names = files.content.split("\n")
    expected = _system("grep", "-rlE", PATTERN, "tree", cwd=project)
    assert header == f"Found {len(expected)} files" and sorted(names) == expected

    counted = await call("Grep", pattern=PATTERN, path="tree", output_mode="count")
    body, total = counted.content.split("\n\n")
    expected_counts = _system("grep", "-rcE", PATTERN, "tree", cwd=project)
    assert sorted(body.split("\n")) == [c for c in expected_counts if not c.endswith(":0")]
    lines = sum(int(c.rpartition(":")[2]) for c in expected_counts)
    assert total == f"Found {lines} total occurrences across {len(expected)} files."

    content = await call("Grep", pattern=PATTERN, path="tree", output_mode="content")
    assert "characters omitted" in content.content  # over output_chars: head and tail
    from agentframe_claude_tools import ClaudeTools, ClaudeToolsOptions

    from agentframe_core import ToolCall

    wide = ClaudeTools(ClaudeToolsOptions(root=project, output_chars=10_000_000))
    args = {"pattern": PATTERN, "path": "tree", "output_mode": "content"}
    whole = await wide.dispatch(ToolCall("1", "Grep", args), ctx)
    assert sorted(whole.content.split("\n")) == _system(
        "grep", "-rnE", PATTERN, "tree", cwd=project
    )


async def test_grep_options(call: Any, project: Path) -> None:
    (project / "src" / "util.js").write_text("const A = 1;\n// hello there\nconst b = 2;\n")
    case = await call("Grep", pattern="HELLO", **{"-i": True})
    assert set(case.content.split("\n")[1:]) == {"src/app.py", "src/util.js"}
    typed = await call("Grep", pattern="hello", type="js")
    assert typed.content == "Found 1 file\nsrc/util.js"
    globbed = await call("Grep", pattern="hello", glob="*.py")
    assert globbed.content == "Found 1 file\nsrc/app.py"
    context = await call(
        "Grep", pattern="hello", path="src/util.js", output_mode="content", **{"-C": 1}
    )
    assert context.content == "1-const A = 1;\n2:// hello there\n3-const b = 2;"
    paged = await call("Grep", pattern="e", output_mode="content", head_limit=1, offset=1)
    assert len(paged.content.split("\n")) == 1
    multi = await call("Grep", pattern=r"main\(\):.*hello", multiline=True, output_mode="content")
    assert multi.content == "src/app.py:1:def main():\nsrc/app.py:2:    return 'hello'"
    bad = await call("Grep", pattern="(unclosed")
    assert bad.is_error and "not a valid regular expression" in bad.content
    nothing = await call("Grep", pattern="zzz-not-there", output_mode="content")
    assert nothing.content == "No matches found"


async def test_grep_passes_fifos_by_and_refuses_one_named(call: Any, project: Path) -> None:
    import os

    os.mkfifo(project / "src" / "pipe")  # nobody writes: opening it would block for ever
    result = await call("Grep", pattern="hello")
    assert result.content == "Found 1 file\nsrc/app.py"
    named = await call("Grep", pattern="hello", path="src/pipe")
    assert named.is_error and "not a regular file" in named.content


async def test_grep_skips_binary_and_large_files_and_says_so(project: Path, ctx: Any) -> None:
    from agentframe_claude_tools import ClaudeTools, ClaudeToolsOptions

    from agentframe_core import ToolCall

    (project / "blob.bin").write_bytes(b"hello\0\0\0")
    (project / "big.txt").write_text("hello\n" * 1000)
    tools = ClaudeTools(ClaudeToolsOptions(root=project, max_file_bytes=1024))
    result = await tools.dispatch(ToolCall("1", "Grep", {"pattern": "hello"}), ctx)
    assert result.content.startswith("Found 1 file\nsrc/app.py")
    assert "1 file(s) over max_file_bytes were not searched" in result.content
    assert "1 binary file(s) were not searched" in result.content


async def test_a_catastrophic_pattern_stops_at_the_deadline(project: Path, ctx: Any) -> None:
    from agentframe_claude_tools import ClaudeTools, ClaudeToolsOptions

    from agentframe_core import ToolCall

    (project / "evil.txt").write_text("a" * 40 + "!\n")
    tools = ClaudeTools(ClaudeToolsOptions(root=project, search_timeout=1.0))
    started = time.monotonic()
    result = await tools.dispatch(ToolCall("1", "Grep", {"pattern": "(a|aa)+$"}), ctx)
    assert time.monotonic() - started < 30  # regex counts CPU time; the machine is shared
    assert "stopped at its time limit (search_timeout)" in result.content


async def test_ls_shows_a_tree_without_hidden_entries(call: Any, project: Path) -> None:
    (project / ".git").mkdir()
    (project / ".env").write_text("TOKEN=x")
    (project / "src" / "__pycache__").mkdir()
    result = await call("LS")
    assert result.content == f"- {project}/\n  - notes.txt\n  - src/\n    - app.py"
    ignored = await call("LS", ignore=["*.py"])
    assert "app.py" not in ignored.content


async def test_ls_puts_each_entry_under_its_own_folder(call: Any, project: Path) -> None:
    """The walk lists a folder's entries before entering its subfolders: `src/app.py` was
    shown under `tests/`, the last folder listed."""
    (project / "tests").mkdir()
    (project / "tests" / "test_app.py").write_text("")
    (project / "src" / "deep").mkdir()
    (project / "src" / "deep" / "x.py").write_text("")
    result = await call("LS")
    assert result.content == (
        f"- {project}/\n  - notes.txt\n  - src/\n    - app.py\n    - deep/\n      - x.py\n"
        "  - tests/\n    - test_app.py"
    )
