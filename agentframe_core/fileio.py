"""Writing a file so that a reader sees the old content or the new, never part of either.

One implementation for the kernel and every plugin: a process may be killed at any moment, and
another may read the file at the same time.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

__all__ = ["TMP_SUFFIX", "atomic_write"]

#: Every temporary file ends in this, so readers that list a folder can skip them.
TMP_SUFFIX = ".tmp"


def atomic_write(path: Path, data: bytes | str, *, durable: bool = False) -> None:
    """Replace `path` with `data` (text is written as UTF-8) through a temporary file
    `<name>.<random>.tmp` in the same folder, then a rename. Two writers of one file never share
    a temporary, and a failed write leaves no temporary behind. `durable` also flushes the data
    to disk before the rename, so that a power loss leaves the old content or the new."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    tmp = path.with_name(f"{path.name}.{secrets.token_hex(4)}{TMP_SUFFIX}")
    try:
        with open(tmp, "wb") as handle:
            handle.write(payload)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
