"""A memory bank: the memory files of one scope and their BM25 index, kept in step.

The files are the truth. The index lives beside them in `.index.sqlite3`: each document's term
counts, and a change log. Every process holds the index in memory (`InvertedIndex`) and, before
each query, applies the log entries written since it last looked (one indexed SELECT), so a
`remember` in one process is found by a query in another without anything being rebuilt.

Writes (remember, forget, a rescan) run inside one SQLite write transaction (`BEGIN
IMMEDIATE`), which is also the lock that makes the near-duplicate check and the write one
atomic step across processes. A process killed between writing a file and committing leaves a
file the index does not know; the next rescan (every bank does one when it opens) indexes it.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sqlite3
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from agentframe_core import PathEscapeError, confined, use_wal

from .analyzer import Analyzer
from .files import (
    CATEGORY,
    SLUG,
    BadMemoryFile,
    Memory,
    read_memory,
    render_memory,
    slugify,
    write_memory,
)
from .inverted import InvertedIndex

__all__ = ["MemoryBank", "UnknownMemoryError"]

log = logging.getLogger("agentframe.memory")

INDEX_FILE = ".index.sqlite3"
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS docs (
    id TEXT PRIMARY KEY, mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL, terms TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS changes (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL);
"""
#: Change-log rows kept; a process further behind than this reloads the whole index.
KEEP_CHANGES = 20_000


class UnknownMemoryError(KeyError):
    pass


def _now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat()


class MemoryBank:
    def __init__(
        self,
        folder: Path,
        *,
        max_file_bytes: int = 256_000,
        duplicate_threshold: float = 0.8,
        stem: bool = True,
        busy_timeout: float = 30.0,
    ) -> None:
        self.folder = folder
        self.max_file_bytes = max_file_bytes
        self.duplicate_threshold = duplicate_threshold
        self.analyzer = Analyzer(stem=stem)
        self.busy_timeout = busy_timeout
        #: Files skipped by the last scan: path -> why.
        self.problems: dict[str, str] = {}
        self._lock = threading.RLock()
        self._db: sqlite3.Connection | None = None
        self._index = InvertedIndex()
        self._seq = 0

    # -- opening and keeping up ---------------------------------------------------------------

    def open(self) -> None:
        with self._lock:
            if self._db is not None:
                return
            self.folder.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(
                self._inside(self.folder / INDEX_FILE),
                timeout=self.busy_timeout,
                isolation_level=None,
                check_same_thread=False,
            )
            use_wal(db, self.busy_timeout)  # several processes may open a new index at once
            db.executescript(SCHEMA)
            self._db = db
            self._load(db)
            with self._writing() as db:
                found = db.execute("SELECT value FROM meta WHERE key='analyzer'").fetchone()
                fresh = found is None or found[0] != self.analyzer.signature
                if fresh:  # built with other terms (or never): read every file again
                    db.execute(
                        "INSERT OR REPLACE INTO meta VALUES ('analyzer', ?)",
                        (self.analyzer.signature,),
                    )
                self._scan(db, force=fresh)

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            self.open()
        assert self._db is not None
        return self._db

    @contextlib.contextmanager
    def _writing(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, holding the cross-process write lock, index caught up."""
        with self._lock:
            db = self._conn()
            db.execute("BEGIN IMMEDIATE")
            try:
                self._catch_up(db)
                yield db
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                self._load(db)  # the in-memory index may hold what was rolled back
                raise

    def _load(self, db: sqlite3.Connection) -> None:
        self._index = InvertedIndex()
        self._seq = db.execute("SELECT COALESCE(MAX(seq), 0) FROM changes").fetchone()[0]
        for doc_id, terms in db.execute("SELECT id, terms FROM docs"):
            self._index.add(doc_id, json.loads(terms))

    def _catch_up(self, db: sqlite3.Connection) -> None:
        rows = db.execute("SELECT seq, id FROM changes WHERE seq > ? ORDER BY seq", (self._seq,))
        changed = rows.fetchall()
        if not changed:
            return
        if changed[0][0] > self._seq + 1:  # the log was trimmed past what we have seen
            self._load(db)
            return
        for doc_id in dict.fromkeys(doc_id for _, doc_id in changed):
            found = db.execute("SELECT terms FROM docs WHERE id = ?", (doc_id,)).fetchone()
            if found is None:
                self._index.remove(doc_id)
            else:
                self._index.add(doc_id, json.loads(found[0]))
        self._seq = changed[-1][0]

    def _record(self, db: sqlite3.Connection, doc_id: str, memory: Memory | None) -> None:
        """Write one document's index row (None: remove it) and its change-log entry."""
        if memory is None:
            db.execute("DELETE FROM docs WHERE id = ?", (doc_id,))
            self._index.remove(doc_id)
        else:
            assert memory.path is not None
            info = memory.path.stat()
            counts = self.analyzer.counts(memory.indexed_text())
            db.execute(
                "INSERT OR REPLACE INTO docs VALUES (?, ?, ?, ?)",
                (doc_id, info.st_mtime_ns, info.st_size, json.dumps(counts)),
            )
            self._index.add(doc_id, counts)
        self._seq = db.execute("INSERT INTO changes (id) VALUES (?)", (doc_id,)).lastrowid or 0
        if self._seq % 1000 == 0:
            db.execute("DELETE FROM changes WHERE seq <= ?", (self._seq - KEEP_CHANGES,))

    # -- files ----------------------------------------------------------------------------------

    def files(self) -> list[Path]:
        """Every candidate memory file of this scope (regular category folders, *.md)."""
        found: list[Path] = []
        if not self.folder.is_dir():
            return found
        for category in sorted(self.folder.iterdir()):
            if not CATEGORY.match(category.name) or category.is_symlink() or not category.is_dir():
                continue
            found.extend(p for p in sorted(category.glob("*.md")) if not p.name.startswith("."))
        return found

    def _scan(self, db: sqlite3.Connection, *, force: bool) -> dict[str, int]:
        known = {i: (m, s) for i, m, s in db.execute("SELECT id, mtime_ns, size FROM docs")}
        seen: set[str] = set()
        self.problems = {}
        indexed = 0
        for path in self.files():
            doc_id = f"{path.parent.name}/{path.stem}"
            try:
                info = path.lstat()
                if not force and known.get(doc_id) == (info.st_mtime_ns, info.st_size):
                    seen.add(doc_id)
                    continue
                memory = read_memory(path, self.max_file_bytes)
            except (BadMemoryFile, OSError) as err:
                self.problems[str(path)] = str(err)
                log.warning("memory file skipped: %s", err)
                continue
            seen.add(doc_id)
            self._record(db, doc_id, memory)
            indexed += 1
        gone = [doc_id for doc_id in known if doc_id not in seen]
        for doc_id in gone:
            self._record(db, doc_id, None)
        return {"indexed": indexed, "removed": len(gone), "skipped": len(self.problems)}

    def reindex(self) -> dict[str, int]:
        """Read every file again and bring the index in line with the folder."""
        with self._writing() as db:
            return self._scan(db, force=True)

    # -- reading --------------------------------------------------------------------------------

    def search(self, query: str, k: int) -> list[tuple[str, float]]:
        with self._lock:
            self._catch_up(self._conn())
            return self._index.search(self.analyzer.terms(query), k)

    def __len__(self) -> int:
        with self._lock:
            self._catch_up(self._conn())
            return len(self._index)

    def path_of(self, memory_id: str) -> Path:
        category, _, slug = memory_id.partition("/")
        if not CATEGORY.match(category) or not SLUG.match(slug):
            raise UnknownMemoryError(f"not a memory id: {memory_id!r} (category/name)")
        return self._inside(self.folder / category / f"{slug}.md")

    def _inside(self, path: Path) -> Path:
        """`path` (under the scope folder) when no symbolic link on its way leads anywhere:
        category folders, memory files and the index are never links, so nothing read,
        written or deleted through one can be outside the folder (`BadMemoryFile` otherwise).
        The scope folder itself may be a link: it is the configured place."""
        root = self.folder.resolve()
        try:
            real = confined(path, [root], "memory file")
        except PathEscapeError as err:
            raise BadMemoryFile(str(err)) from None
        if real != root / path.relative_to(self.folder):
            raise BadMemoryFile(
                f"{path}: a symbolic link (to {real}); memory files and category folders "
                "must not be links"
            )
        return path

    def get(self, memory_id: str) -> Memory:
        path = self.path_of(memory_id)
        if not path.exists():
            raise UnknownMemoryError(f"no memory {memory_id!r} in {self.folder}")
        return read_memory(path, self.max_file_bytes)

    def all(self) -> list[Memory]:
        """Every readable memory; unreadable files are put in `problems`."""
        found, self.problems = [], {}
        for path in self.files():
            try:
                found.append(read_memory(path, self.max_file_bytes))
            except BadMemoryFile as err:
                self.problems[str(path)] = str(err)
        return found

    # -- writing --------------------------------------------------------------------------------

    def remember(
        self, title: str, content: str, category: str = "general", tags: tuple[str, ...] = ()
    ) -> tuple[Memory, bool]:
        """Save a memory; returns it and whether it is new (False: it updated a near-duplicate)."""
        category = slugify(category)[:64] if not CATEGORY.match(category) else category
        tags = tuple(dict.fromkeys(t.strip() for t in tags if t.strip()))
        draft = Memory(id="", title=title.strip(), content=content.strip(), tags=tags)
        with self._writing() as db:
            twin = self._near_duplicate(draft, category)
            stamp = _now()
            if twin is not None:
                merged = tuple(dict.fromkeys((*twin.tags, *tags)))
                memory = Memory(
                    twin.id,
                    draft.title,
                    draft.content,
                    merged,
                    twin.path,
                    twin.created,
                    stamp,
                    twin.extra,  # keys a user added by hand survive an update
                )
            else:
                path = self._free_path(category, slugify(draft.title))
                memory_id = f"{category}/{path.stem}"
                memory = Memory(memory_id, draft.title, draft.content, tags, path, stamp, stamp)
            assert memory.path is not None
            self._check_size(memory)
            write_memory(memory.path, memory)
            self._record(db, memory.id, memory)
            return memory, twin is None

    def _check_size(self, memory: Memory) -> None:
        """Refuse a memory its own bank would refuse to read back (`max_file_bytes`)."""
        size = len(render_memory(memory).encode("utf-8"))
        if size > self.max_file_bytes:
            raise BadMemoryFile(
                f"{memory.id}: {size} bytes, over the {self.max_file_bytes}-byte cap "
                "(max_file_bytes): not saved; shorten it or split it in several memories"
            )

    def forget(self, memory_id: str) -> Memory:
        path = self.path_of(memory_id)
        with self._writing() as db:
            memory = self.get(memory_id)
            path.unlink()
            self._record(db, memory_id, None)
            return memory

    def _near_duplicate(self, draft: Memory, category: str) -> Memory | None:
        words = set(self.analyzer.terms(draft.content))
        for doc_id, _ in self._index.search(self.analyzer.terms(draft.indexed_text()), 5):
            if not doc_id.startswith(f"{category}/"):
                continue
            try:
                existing = self.get(doc_id)
            except (BadMemoryFile, UnknownMemoryError):
                continue
            if existing.title.casefold() == draft.title.casefold():
                return existing
            theirs = set(self.analyzer.terms(existing.content))
            if words and len(words & theirs) / len(words | theirs) >= self.duplicate_threshold:
                return existing
        return None

    def _free_path(self, category: str, slug: str) -> Path:
        path = self._inside(self.folder / category / f"{slug}.md")
        suffix = 2
        while path.exists() or path.is_symlink():
            path = self._inside(self.folder / category / f"{slug}-{suffix}.md")
            suffix += 1
        return path
