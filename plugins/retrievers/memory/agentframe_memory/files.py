"""Memory files: Markdown with a `title` and `tags` in the frontmatter, one memory a file.

`<scope folder>/<category>/<slug>.md`; the id is `<category>/<slug>`. Every file read may be
hostile (huge, binary, a FIFO, broken YAML): `read_memory` raises `BadMemoryFile` naming the
file and the reason, and callers skip it. Writes are atomic: a temporary file in the same
folder, fsynced, renamed over the target, so a reader sees the old file or the new one.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import stat
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from agentframe_core import AgentframeError, split_frontmatter

__all__ = ["BadMemoryFile", "Memory", "read_memory", "write_memory"]

CATEGORY = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
SLUG = re.compile(r"^[a-z0-9][a-z0-9_-]{0,95}$")


class BadMemoryFile(AgentframeError):
    """A memory file that cannot be used (the message names the file and why)."""


@dataclass(frozen=True, slots=True)
class Memory:
    id: str
    title: str
    content: str
    tags: tuple[str, ...] = ()
    path: Path | None = None
    created: str = ""
    updated: str = ""
    extra: dict[str, object] = field(default_factory=dict)

    @property
    def category(self) -> str:
        return self.id.split("/", 1)[0]

    def indexed_text(self) -> str:
        """What BM25 sees: the title twice (a title match counts more), the tags, the body."""
        return f"{self.title}\n{self.title}\n{' '.join(self.tags)}\n{self.content}"

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "title": self.title,
            "tags": list(self.tags),
            "category": self.category,
            "created": self.created,
            "updated": self.updated,
            "path": str(self.path) if self.path else None,
            "content": self.content,
        }


def slugify(title: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:60].strip("-")
    return slug or "memory"


def memory_id(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


def read_memory(path: Path, max_bytes: int) -> Memory:
    """The memory in `path`; `BadMemoryFile` for anything that is not a sane memory file."""
    text = _read_text(path, max_bytes)
    try:
        fm = split_frontmatter(text, path, required=True)
    except AgentframeError as err:
        raise BadMemoryFile(f"bad frontmatter: {err}") from err
    title, tags = fm.data.get("title"), fm.data.get("tags", [])
    if not isinstance(title, str) or not title.strip():
        raise BadMemoryFile(f"{path}: the frontmatter has no `title` (a non-empty string)")
    if isinstance(tags, str):
        tags = [t.strip() for t in tags.split(",")]
    if not isinstance(tags, list) or not all(isinstance(t, str | int | float) for t in tags):
        raise BadMemoryFile(f"{path}: `tags` must be a list of words")
    rest = {k: v for k, v in fm.data.items() if k not in {"title", "tags", "created", "updated"}}
    return Memory(
        id=memory_id(path),
        title=title.strip(),
        content=fm.body,
        tags=tuple(str(t).strip() for t in tags if str(t).strip()),
        path=path,
        created=str(fm.data.get("created", "")),
        updated=str(fm.data.get("updated", "")),
        extra={str(k): v for k, v in rest.items()},
    )


def _read_text(path: Path, max_bytes: int) -> str:
    try:
        info = path.lstat()
        if not stat.S_ISREG(info.st_mode):
            raise BadMemoryFile(f"{path}: not a regular file")
        if info.st_size > max_bytes:
            raise BadMemoryFile(f"{path}: {info.st_size} bytes, over the {max_bytes}-byte cap")
        with path.open("rb") as handle:
            raw = handle.read(max_bytes + 1)
    except OSError as err:
        raise BadMemoryFile(f"{path}: cannot read: {err.strerror or err}") from err
    if len(raw) > max_bytes:
        raise BadMemoryFile(f"{path}: over the {max_bytes}-byte cap")
    if b"\x00" in raw:
        raise BadMemoryFile(f"{path}: binary content (a NUL byte)")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise BadMemoryFile(f"{path}: not UTF-8 (byte {err.start})") from err


def render_memory(memory: Memory) -> str:
    header: dict[str, object] = {"title": memory.title, "tags": list(memory.tags)}
    if memory.created:
        header["created"] = memory.created
    if memory.updated:
        header["updated"] = memory.updated
    header.update(memory.extra)
    front = yaml.safe_dump(header, allow_unicode=True, sort_keys=False, width=1000)
    return f"---\n{front}---\n\n{memory.content.strip()}\n"


def write_memory(path: Path, memory: Memory) -> None:
    """Write atomically (see the module docstring)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        with temporary.open("x", encoding="utf-8") as handle:
            handle.write(render_memory(memory))
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()
    _fsync_folder(path.parent)


def _fsync_folder(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
