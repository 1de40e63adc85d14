"""`Read`: lines `offset`..`offset+limit` of a file, numbered as `cat -n`, in bounded memory.

The file is scanned in chunks of 1 MiB: memory holds one chunk and the kept lines, whatever
the file's size; a line is kept up to `line_chars` characters and the rest of it only
skipped (a 1 GB file with no newline costs one pass at memchr speed, not 1 GB of memory).
Scanning stops once the lines are collected, at `read_scan_bytes`, or when the numbered text
would pass `output_chars`; each stop is said in the result, with the offset to read on from.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from io import RawIOBase
from pathlib import Path

from .project import ToolError

__all__ = ["Excerpt", "numbered", "read_excerpt"]

_CHUNK = 1 << 20
#: A file whose first bytes hold a NUL is binary (as git and grep decide).
_SNIFF = 8192


@dataclass(slots=True)
class Excerpt:
    lines: list[str] = field(default_factory=list)
    first: int = 1
    #: Lines seen in all (the file's line count when `complete`).
    seen: int = 0
    complete: bool = False
    #: Why scanning stopped early, for the note ("" when it did not).
    stopped: str = ""


def numbered(lines: list[str], first: int) -> str:
    """Lines as Claude Code's Read shows them: the number right-aligned in 6, an arrow."""
    return "\n".join(f"{n:>6}→{line}" for n, line in enumerate(lines, first))


def read_excerpt(
    path: Path, offset: int, limit: int, line_chars: int, scan_bytes: int, output_chars: int
) -> Excerpt:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise ToolError(f"File does not exist: {path}") from None
    except OSError as err:
        raise ToolError(f"{path}: cannot read: {err.strerror or err}") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise ToolError(f"{path} is a directory, not a file; list it with LS or Glob")
        if not stat.S_ISREG(info.st_mode):
            raise ToolError(f"{path} is not a regular file (a device, FIFO or socket); refused")
        with os.fdopen(fd, "rb", buffering=0, closefd=False) as stream:  # a FileIO
            return _scan(stream, offset, limit, line_chars, scan_bytes, output_chars, path)
    finally:
        os.close(fd)


def _scan(
    stream: RawIOBase,
    offset: int,
    limit: int,
    line_chars: int,
    scan_bytes: int,
    output_chars: int,
    path: Path,
) -> Excerpt:
    out = Excerpt(first=offset)
    keep = line_chars * 4  # bytes enough for line_chars characters of UTF-8
    current = bytearray()
    overflow = partial = False
    budget = output_chars
    scanned = 0
    line = 1

    def end_of_line() -> str:
        """Close line `line`: "" to go on, else why the scan stops before it."""
        nonlocal budget
        if line < offset:
            return ""
        if len(out.lines) >= limit:
            return f"more lines follow; read on with offset={line}"
        text = current.decode("utf-8", errors="replace").rstrip("\r")
        if overflow or len(text) > line_chars:
            text = f"{text[:line_chars]}… [line cut at {line_chars} characters]"
        if len(text) + 8 > budget and out.lines:
            return f"the output reached {output_chars} characters; read on with offset={line}"
        out.lines.append(text)
        budget -= len(text) + 8
        return ""

    buffer = bytearray(_CHUNK)  # one buffer, refilled: no fresh megabyte per chunk
    while True:
        size = stream.readinto(buffer) or 0
        if scanned == 0 and b"\0" in buffer[: min(size, _SNIFF)]:
            raise ToolError(f"{path} is a binary file; Read shows text files only")
        if not size:
            if partial:
                out.stopped = end_of_line()
                line += 1
            out.seen, out.complete = line - 1, not out.stopped
            return out
        scanned += size
        start = 0
        while True:
            end = buffer.find(b"\n", start, size)
            stop = size if end < 0 else end
            partial = partial or stop > start
            if line >= offset and not overflow:
                room = keep - len(current)
                current += buffer[start : start + min(room, stop - start)]
                overflow = stop - start > room
            if end < 0:
                break
            out.stopped = end_of_line()
            if out.stopped:
                out.seen = line
                return out
            current, overflow, partial = bytearray(), False, False
            line += 1
            start = end + 1
        if scanned >= scan_bytes:
            out.seen = line
            out.stopped = f"stopped after scanning {scanned} bytes (read_scan_bytes) at line {line}"
            return out
