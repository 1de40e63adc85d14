"""Write, Edit and MultiEdit: Claude Code's refusals and result texts, atomic replacement,
permission bits kept, nothing half-applied."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any


async def test_edit_refuses_a_non_unique_match_and_changes_nothing(
    call: Any, project: Path
) -> None:
    target = project / "dup.py"
    target.write_text("x = 1\ny = 1\n")
    result = await call("Edit", file_path="dup.py", old_string="1", new_string="2")
    assert result.is_error
    assert result.content.startswith(
        "Found 2 matches of the string to replace, but replace_all is false."
    )
    assert target.read_text() == "x = 1\ny = 1\n"
    done = await call("Edit", file_path="dup.py", old_string="1", new_string="2", replace_all=True)
    assert not done.is_error and "All occurrences of '1' were successfully replaced" in done.content
    assert target.read_text() == "x = 2\ny = 2\n"


async def test_a_unique_edit_shows_the_edited_snippet(call: Any, project: Path) -> None:
    result = await call("Edit", file_path="src/app.py", old_string="'hello'", new_string="'hi'")
    assert not result.is_error
    assert result.content == (
        f"The file {project / 'src/app.py'} has been updated. Here's the result of running "
        "`cat -n` on a snippet of the edited file:\n     1→def main():\n     2→    return 'hi'"
    )
    assert (project / "src/app.py").read_text() == "def main():\n    return 'hi'\n"


async def test_edit_refusals(call: Any, project: Path) -> None:
    missing = await call("Edit", file_path="notes.txt", old_string="four", new_string="4")
    assert missing.is_error and missing.content.startswith("String to replace not found in file.")
    same = await call("Edit", file_path="notes.txt", old_string="one", new_string="one")
    assert same.is_error and "No changes to make" in same.content
    exists = await call("Edit", file_path="notes.txt", old_string="", new_string="x")
    assert exists.is_error and "file already exists" in exists.content
    gone = await call("Edit", file_path="nope.txt", old_string="a", new_string="b")
    assert gone.is_error and "File does not exist" in gone.content
    assert (project / "notes.txt").read_text() == "one\ntwo\nthree\n"


async def test_an_empty_old_string_creates_a_new_file(call: Any, project: Path) -> None:
    result = await call("Edit", file_path="new/made.txt", old_string="", new_string="fresh\n")
    assert result.content == f"File created successfully at: {project / 'new/made.txt'}"
    assert (project / "new/made.txt").read_text() == "fresh\n"


async def test_multiedit_applies_in_order_or_not_at_all(call: Any, project: Path) -> None:
    edits = [
        {"old_string": "one", "new_string": "uno"},
        {"old_string": "uno\ntwo", "new_string": "uno\ndos"},
    ]
    done = await call("MultiEdit", file_path="notes.txt", edits=edits)
    assert done.content.startswith(f"Applied 2 edits to {project / 'notes.txt'}:")
    assert (project / "notes.txt").read_text() == "uno\ndos\nthree\n"
    failing = [
        {"old_string": "three", "new_string": "tres"},
        {"old_string": "four", "new_string": "cuatro"},
    ]
    refused = await call("MultiEdit", file_path="notes.txt", edits=failing)
    assert refused.is_error and "(edit 2)" in refused.content
    assert (project / "notes.txt").read_text() == "uno\ndos\nthree\n"  # edit 1 not applied


async def test_write_creates_then_updates_and_keeps_the_mode(call: Any, project: Path) -> None:
    created = await call("Write", file_path="bin/run.sh", content="#!/bin/sh\necho 1\n")
    assert created.content == f"File created successfully at: {project / 'bin/run.sh'}"
    script = project / "bin/run.sh"
    script.chmod(0o755)
    updated = await call("Write", file_path="bin/run.sh", content="#!/bin/sh\necho 2\n")
    assert updated.content == f"The file {script} has been updated successfully."
    assert script.read_text() == "#!/bin/sh\necho 2\n"
    assert stat.S_IMODE(script.stat().st_mode) == 0o755
    assert not list(project.rglob("*.tmp"))  # atomic_write's temporary is gone


async def test_write_refuses_a_directory(call: Any) -> None:
    result = await call("Write", file_path="src", content="x")
    assert result.is_error and "not a regular file" in result.content


async def test_edit_refuses_a_file_over_max_file_bytes(project: Path, ctx: Any) -> None:
    from agentframe_claude_tools import ClaudeTools, ClaudeToolsOptions

    from agentframe_core import ToolCall

    (project / "large.txt").write_text("a" * 5000)
    tools = ClaudeTools(ClaudeToolsOptions(root=project, max_file_bytes=1024))
    args = {"file_path": "large.txt", "old_string": "a", "new_string": "b", "replace_all": True}
    result = await tools.dispatch(ToolCall("1", "Edit", args), ctx)
    assert result.is_error and "too large" in result.content


async def test_edits_of_one_file_in_one_reply_all_apply(call: Any, project: Path) -> None:
    """The loop runs a reply's calls at once; without a lock per file the last write wins
    and the others' changes are lost."""
    import asyncio

    target = project / "many.txt"
    target.write_text("".join(f"item {n}\n" for n in range(40)))
    results = await asyncio.gather(
        *(
            call("Edit", file_path="many.txt", old_string=f"item {n}\n", new_string=f"done {n}\n")
            for n in range(40)
        )
    )
    assert not [r.content for r in results if r.is_error]
    assert target.read_text() == "".join(f"done {n}\n" for n in range(40))
