"""Files: reading one a user named safely, and writing one atomically.

Reading: only regular files, only up to a size, only UTF-8.

Every file the kernel reads on a user's word (a config, an agent definition, a skill, an
AGENTS.md, a session export) may be `/dev/zero`, a FIFO nobody writes to, a directory, a
sparse file of many gigabytes or binary junk. `read_text_file` refuses each of those with a
`FileReadError` that names the file, the reason and, for size, the limit, instead of hanging,
exhausting memory or raising a `UnicodeDecodeError`.

Writing: `atomic_write`, one implementation for the kernel and every plugin, so that a reader
sees the old content or the new, never part of either, though a process may be killed at any
moment and another may read the file at the same time.

Confining: `confined`, the one check that a path a user or a model named stays inside its
folder once every symbolic link on the way is resolved (`../`, absolute paths and links out
are all the same escape).
"""

from __future__ import annotations

import os
import secrets
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import BinaryIO

from ..contract.errors import AgentframeError

__all__ = [
    "AGENT_FILE_LIMIT",
    "CONFIG_FILE_LIMIT",
    "TMP_SUFFIX",
    "FileReadError",
    "PathEscapeError",
    "atomic_write",
    "confined",
    "decode_text",
    "read_text_file",
    "read_text_stream",
]

#: Bytes of a config file (a config is a few kilobytes; this leaves room for long lists).
CONFIG_FILE_LIMIT = 1 << 20
#: Bytes of an agent definition, skill or AGENTS.md file (prose, read into every prompt).
AGENT_FILE_LIMIT = 1 << 20

_CHUNK = 1 << 16


class FileReadError(AgentframeError):
    """A file cannot be read as text: `reason` says why (never a traceback)."""

    def __init__(self, path: Path | str, reason: str, what: str = "file") -> None:
        self.path, self.reason, self.what = Path(path), reason, what
        super().__init__(f"{path}: cannot read {what}: {reason}")


class PathEscapeError(AgentframeError):
    """A path that, its symbolic links resolved, lies outside every folder it must stay in."""

    def __init__(self, path: Path | str, real: Path, folders: list[Path], what: str) -> None:
        self.path, self.real, self.folders = Path(path), real, folders
        outermost = [f for f in folders if not any(f != o and f.is_relative_to(o) for o in folders)]
        inside = " or ".join(dict.fromkeys(str(folder) for folder in outermost)) or "no folder"
        target = f" (it resolves to {real})" if Path(path) != real else ""
        self.reason = f"the {what} must be inside {inside}{target}"
        super().__init__(f"{path}: {self.reason}")


def confined(path: Path | str, folders: Iterable[Path], what: str = "path") -> Path:
    """`path` with every symbolic link resolved, when it lies inside one of `folders` (their
    links resolved too); else `PathEscapeError` naming the path, where it leads and the
    folders. A path that does not exist yet is resolved as far as it exists."""
    real = Path(path).expanduser().resolve()
    roots = [Path(folder).expanduser().resolve() for folder in folders]
    if any(real.is_relative_to(root) for root in roots):
        return real
    raise PathEscapeError(path, real, roots, what)


def read_text_file(path: Path | str, limit: int, what: str = "file") -> str:
    """The UTF-8 text of the regular file `path`, at most `limit` bytes (`what` names the
    file's role in errors: "config file", "agent definition"...). Opened non-blocking, so a
    FIFO is refused at once instead of waiting for a writer."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as err:
        raise FileReadError(path, err.strerror or str(err), what) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise FileReadError(path, f"not a regular file ({_kind(info.st_mode)})", what)
        if info.st_size > limit:
            raise FileReadError(path, _too_big(info.st_size, limit), what)
        with os.fdopen(fd, "rb", closefd=False) as stream:
            return read_text_stream(stream, limit, what, name=path)
    finally:
        os.close(fd)


def read_text_stream(
    stream: BinaryIO, limit: int, what: str = "input", *, name: Path | str = "<stdin>"
) -> str:
    """At most `limit` bytes of `stream` as UTF-8 text (for stdin, which may be anything)."""
    chunks: list[bytes] = []
    size = 0
    while size <= limit:
        try:
            chunk = stream.read(min(_CHUNK, limit + 1 - size))
        except OSError as err:
            raise FileReadError(name, err.strerror or str(err), what) from None
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    if size > limit:
        raise FileReadError(name, _too_big(None, limit), what)
    return decode_text(b"".join(chunks), name, what)


def decode_text(data: bytes, name: Path | str, what: str = "file") -> str:
    """`data` as UTF-8, or a `FileReadError` naming the line and byte of the first bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        bad = data[err.start : err.start + 1].hex()
        raise FileReadError(
            name, f"not UTF-8 text: byte 0x{bad} at offset {err.start} (line {line})", what
        ) from None


def _too_big(size: int | None, limit: int) -> str:
    actual = f"{size} bytes" if size is not None else "more"
    return f"too large ({actual}; the limit is {limit} bytes)"


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a file"


#: Every temporary file ends in this, so readers that list a folder can skip them.
TMP_SUFFIX = ".tmp"


def atomic_write(
    path: Path, data: bytes | str, *, durable: bool = False, mode: int = 0o666
) -> None:
    """Replace `path` with `data` (text is written as UTF-8) through a temporary file
    `<name>.<random>.tmp` in the same folder, then a rename. Two writers of one file never share
    a temporary, and a failed write leaves no temporary behind. `durable` also flushes the data
    to disk before the rename, so that a power loss leaves the old content or the new. `mode`
    (less the umask) is the file's from its creation: 0o600 is never readable by others."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    tmp = path.with_name(f"{path.name}.{secrets.token_hex(4)}{TMP_SUFFIX}")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        with open(fd, "wb") as handle:
            handle.write(payload)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
