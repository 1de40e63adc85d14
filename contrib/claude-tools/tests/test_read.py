"""Read: Claude Code's numbering, offset and limit, its warnings, refusals of what is not a
text file, and a 1 GB file read in bounded memory and time."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest


async def test_lines_are_numbered_as_claude_code_numbers_them(call: Any) -> None:
    result = await call("Read", file_path="notes.txt")
    assert result.content == "     1→one\n     2→two\n     3→three"


async def test_offset_and_limit_choose_the_lines(call: Any, project: Path) -> None:
    (project / "long.txt").write_text("".join(f"line {n}\n" for n in range(1, 101)))
    result = await call("Read", file_path="long.txt", offset=40, limit=3)
    assert result.content.split("\n\n")[0] == "    40→line 40\n    41→line 41\n    42→line 42"
    assert "read on with offset=43" in result.content
    last = await call("Read", file_path="long.txt", offset=99)
    assert last.content == "    99→line 99\n   100→line 100"


async def test_empty_file_and_offset_past_the_end_warn(call: Any, project: Path) -> None:
    (project / "empty.txt").write_text("")
    empty = await call("Read", file_path="empty.txt")
    assert "the file exists but the contents are empty" in empty.content
    past = await call("Read", file_path="notes.txt", offset=10)
    assert past.content == (
        "<system-reminder>Warning: the file exists but is shorter than the provided offset "
        "(10). The file has 3 lines.</system-reminder>"
    )


async def test_a_last_line_without_newline_and_crlf(call: Any, project: Path) -> None:
    (project / "dos.txt").write_bytes(b"a\r\nb\r\nc")
    result = await call("Read", file_path="dos.txt")
    assert result.content == "     1→a\n     2→b\n     3→c"


async def test_long_lines_are_cut(project: Path, ctx: Any) -> None:
    from agentframe_claude_tools import ClaudeTools, ClaudeToolsOptions

    from agentframe_core import ToolCall

    (project / "wide.txt").write_text("x" * 5000 + "\nshort\n")
    tools = ClaudeTools(ClaudeToolsOptions(root=project, line_chars=100))
    result = await tools.dispatch(ToolCall("1", "Read", {"file_path": "wide.txt"}), ctx)
    first, second = result.content.split("\n")
    assert first == f"     1→{'x' * 100}… [line cut at 100 characters]"
    assert second == "     2→short"


async def test_output_is_capped_with_the_offset_to_read_on(project: Path, ctx: Any) -> None:
    from agentframe_claude_tools import ClaudeTools, ClaudeToolsOptions

    from agentframe_core import ToolCall

    (project / "big.txt").write_text("".join(f"{'y' * 90} {n}\n" for n in range(1000)))
    tools = ClaudeTools(ClaudeToolsOptions(root=project, output_chars=2000))
    result = await tools.dispatch(ToolCall("1", "Read", {"file_path": "big.txt"}), ctx)
    assert len(result.content) < 2200
    assert "the output reached 2000 characters; read on with offset=" in result.content


@pytest.mark.parametrize("kind", ["missing", "directory", "binary", "fifo", "device"])
async def test_what_is_not_a_text_file_is_refused(call: Any, project: Path, kind: str) -> None:
    if kind == "binary":
        (project / "target").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0")
    elif kind == "directory":
        (project / "target").mkdir()
    elif kind == "fifo":
        os.mkfifo(project / "target")  # nobody writes: a blocking open would hang
    elif kind == "device":
        if os.geteuid() != 0:
            pytest.skip("making a device node needs root")
        os.mknod(project / "target", 0o600 | stat.S_IFCHR, os.makedev(1, 5))  # /dev/zero
    result = await call("Read", file_path="target")
    assert result.is_error, result.content
    expected = {
        "missing": "File does not exist",
        "directory": "is a directory",
        "binary": "is a binary file",
        "fifo": "not a regular file",
        "device": "not a regular file",
    }[kind]
    assert expected in result.content


_MEASURE = r"""
import asyncio, json, resource, sys, time
from pathlib import Path
from agentframe_claude_tools import ClaudeTools, ClaudeToolsOptions
from agentframe_core import MemoryStore, RunContext, Stack, ToolCall, VerbatimBuilder
from agentframe_core.testing import ScriptedAdapter

root, arguments = Path(sys.argv[1]), json.loads(sys.argv[2])
tools = ClaudeTools(ClaudeToolsOptions(root=root))
ctx = RunContext("s", Stack(ScriptedAdapter(), MemoryStore(), VerbatimBuilder()))
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
started = time.perf_counter()
result = asyncio.run(tools.dispatch(ToolCall("1", "Read", arguments), ctx))
seconds = time.perf_counter() - started
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"seconds": seconds, "grew_kib": peak - before, "peak_kib": peak,
                  "error": result.is_error, "content": result.content[-3000:],
                  "size": len(result.content)}))
"""


def _measure(root: Path, **arguments: Any) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(root), json.dumps(arguments)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_a_1_gb_file_is_read_in_bounded_memory_and_time(project: Path) -> None:
    """A sparse 1 GB file: text lines, a hole of 1 GB without a newline (one giant line),
    then a last line. Reading it all the way to the last line keeps the process's memory
    within a few MiB of its start, and takes one pass at memchr speed."""
    big = project / "huge.log"
    with open(big, "wb") as handle:
        handle.write(b"".join(b"header line %d\n" % n for n in range(1000)))
        handle.seek(1 << 30)
        handle.write(b"\nthe last line\n")
    assert big.stat().st_size > 1 << 30
    assert big.stat().st_blocks * 512 < 10 << 20  # sparse: the test costs no disk

    head = _measure(project, file_path="huge.log", limit=5)
    assert not head["error"] and head["content"].startswith("     1→header line 0")
    assert head["seconds"] < 2, head

    tail = _measure(project, file_path="huge.log", offset=1001)
    assert not tail["error"], tail["content"]
    lines = tail["content"].split("\n")
    assert lines[0].startswith("  1001→") and "[line cut at 2000 characters]" in lines[0]
    assert lines[1] == "  1002→the last line"
    assert tail["grew_kib"] < 32 * 1024, tail  # 1 GiB scanned, memory grew < 32 MiB
    assert tail["seconds"] < 60, tail
    print(
        f"\n1 GiB Read to its last line: {tail['seconds']:.2f} s, "
        f"peak RSS {tail['peak_kib'] / 1024:.1f} MiB (+{tail['grew_kib'] / 1024:.1f} MiB)"
    )


def test_the_scan_stops_at_read_scan_bytes(project: Path, ctx: Any) -> None:
    from agentframe_claude_tools import ClaudeTools, ClaudeToolsOptions

    from agentframe_core import ToolCall

    big = project / "hole.txt"
    with open(big, "wb") as handle:
        handle.write(b"text\n" * 4000)  # the first 8 KiB are text: not taken for binary
        handle.truncate(64 << 20)
    tools = ClaudeTools(ClaudeToolsOptions(root=project, read_scan_bytes=8 << 20))
    call = ToolCall("1", "Read", {"file_path": "hole.txt", "offset": 4001})
    result = asyncio.run(tools.dispatch(call, ctx))
    assert "stopped after scanning" in result.content and "read_scan_bytes" in result.content
