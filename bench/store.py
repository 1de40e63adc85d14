"""The SQLite and PostgreSQL session stores against the in-memory reference store, side by side
in one process.

- appends/s, one at a time, each durable once `append` returns (synchronous=full, and normal);
- `context()` time for sessions of 1k, 10k and 100k entries, as a ratio to MemoryStore;
- `context()` time after a compaction folded all but the last 50 entries: it should track the
  visible entries (51), not the stored ones;
- PostgreSQL (a throwaway local server started here, fsync and synchronous_commit on, over TCP
  on 127.0.0.1) beside them in the appends and context() figures, when its binaries exist;
- the async driver: the store's writer and reader threads (a connection each), against
  `asyncio.to_thread` with a connection per pool thread; and how long the event loop stalls
  while a 100k-entry `context()` is read.

    python bench/store.py [--sizes 1000,10000,100000] [--appends 2000] [--dir DIR]

DIR (default: a temporary folder in the current directory, so on the disk you care about)
holds the database files; they are deleted afterwards.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sqlite3
import statistics
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import Any

from agentframe_store_postgres import PostgresStore
from agentframe_store_postgres.testing import TempServer, postgres_binaries
from agentframe_store_sqlite import SqliteStore
from agentframe_store_sqlite.schema import open_database

from agentframe_core.contract.model import Compaction, Entry, EntryKind
from agentframe_core.contract.protocols import ExportableStore, StoredEntry
from agentframe_core.parts.memorystore import MemoryStore

#: The throwaway server's DSN, when PostgreSQL binaries exist (set by `main`).
POSTGRES: list[str] = []


def postgres_store(schema: str) -> PostgresStore | None:
    return PostgresStore(POSTGRES[0], schema=schema) if POSTGRES else None


class PoolConnections:
    """Stands in for both of the store's workers: calls go to the loop's default pool
    (`asyncio.to_thread`), each pool thread with its own connection."""

    def __init__(self, path: Path, options: dict[str, Any]) -> None:
        self.path, self.options = path, options
        self.local = threading.local()

    @property
    def db(self) -> sqlite3.Connection:
        db: sqlite3.Connection | None = getattr(self.local, "db", None)
        if db is None:
            db = self.local.db = open_database(self.path, **self.options)
        return db

    async def run(self, function: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.to_thread(function, *args)

    def close(self) -> None:
        """The pool threads' connections close when they are collected."""


class PerThreadConnections(SqliteStore):
    """The alternative driver: `asyncio.to_thread` with a connection per pool thread, so
    writes from several tasks run at once, contending for SQLite's write lock."""

    def __init__(self, path: Path, **options: Any) -> None:
        super().__init__(path, **options)
        self._writer.close()
        self._reader.close()
        self._writer = self._reader = PoolConnections(self.path, options)  # type: ignore[assignment]


def conversation(size: int) -> list[StoredEntry]:
    """A session that looks like agent work: user, assistant, tool call, sizeable result."""
    records = []
    for n in range(size):
        turn = n % 4
        if turn == 0:
            entry = Entry(kind=EntryKind.USER, content=f"Question {n}: what changed in file {n}?")
        elif turn == 1:
            entry = Entry(
                kind=EntryKind.ASSISTANT,
                content="Let me look at the diff. " * 10,
                meta={"usage": {"prompt": 900 + n, "completion": 40}},
            )
        elif turn == 2:
            entry = Entry(
                kind=EntryKind.TOOL_CALL,
                content=f'{{"path": "src/module_{n}.py"}}',
                tool_call_id=f"call{n}",
                tool_name="read_file",
            )
        else:
            entry = Entry(
                kind=EntryKind.TOOL_RESULT,
                content=f"def function_{n}(x):\n    return x * {n}\n" * 40,
                tool_call_id=f"call{n - 1}",
                tool_name="read_file",
            )
        records.append(StoredEntry(entry))
    return records


async def best(call: Callable[[], Awaitable[Any]], seconds: float = 1.0, most: int = 50) -> float:
    """Median seconds per call, over as many calls as fit in about `seconds` (at least 3)."""
    times: list[float] = []
    spent = 0.0
    while len(times) < 3 or (spent < seconds and len(times) < most):
        started = time.perf_counter()
        await call()
        times.append(time.perf_counter() - started)
        spent += times[-1]
    return statistics.median(times)


async def appends_per_second(store: Any, count: int, session_id: str = "appends") -> float:
    started = time.perf_counter()
    for n in range(count):
        await store.append(session_id, Entry(kind=EntryKind.USER, content=f"message {n}"))
    return count / (time.perf_counter() - started)


async def bench_appends(folder: Path, count: int, rounds: int = 10) -> None:
    """Rounds interleave the stores, each round in a rotated order, so that a burst of disk
    load from elsewhere hits them all alike; each figure is the median over the rounds."""
    print(f"appends, one at a time, each durable when it returns ({count} per store):")
    stores: dict[str, Any] = {
        "memory": MemoryStore(),
        "sqlite synchronous=full (default)": SqliteStore(folder / "full.db"),
        "  same, asyncio.to_thread driver": PerThreadConnections(
            folder / "thread.db", busy_timeout=5.0, synchronous="full"
        ),
        "sqlite synchronous=normal": SqliteStore(folder / "normal.db", synchronous="normal"),
    }
    if (postgres := postgres_store("appends")) is not None:
        stores["postgres (fsync on, TCP localhost)"] = postgres
    rates: dict[str, list[float]] = {name: [] for name in stores}
    order = list(stores)
    for round_ in range(rounds):
        for name in order[round_ % len(order) :] + order[: round_ % len(order)]:
            n = count * 10 // rounds if name == "memory" else count // rounds
            rates[name].append(await appends_per_second(stores[name], n))
    memory = statistics.median(rates["memory"])
    for name, store in stores.items():
        rate = statistics.median(rates[name])
        slower = f"{memory / rate:>8,.0f}x slower than memory" if name != "memory" else ""
        print(f"  {name:<36} {rate:>12,.0f} /s   {slower}")
        if name != "memory":
            await store.aclose()


async def fill(store: ExportableStore, records: list[StoredEntry]) -> None:
    await store.restore("s", records)


async def cold_context(schema: str, runs: int = 3) -> float:
    """Median seconds of context() by a store that decoded nothing yet (its pool opened
    beforehand): what a fresh worker process pays on its first read of a session."""
    times = []
    for _ in range(runs):
        store = PostgresStore(POSTGRES[0], schema=schema)
        await store.sessions()
        started = time.perf_counter()
        await store.context("s")
        times.append(time.perf_counter() - started)
        await store.aclose()
    return statistics.median(times)


async def bench_context(folder: Path, sizes: list[int]) -> None:
    print("\ncontext(): median µs per call")
    header = (
        f"  {'stored':>8} {'visible':>8} {'memory':>10} {'sqlite':>10} {'ratio':>8}"
        f" {'postgres':>10} {'ratio':>8} {'pg cold':>10} {'ratio':>8}"
    )
    folded: list[tuple[int, float, float]] = []
    print("  (postgres: a store that read the session before; pg cold: a new store each call)")
    print(header)
    for size in sizes:
        records = conversation(size)
        memory, sqlite = MemoryStore(), SqliteStore(folder / f"context-{size}.db")
        for store in (memory, sqlite):
            await fill(store, records)
        t_mem = await best(partial(memory.context, "s"))
        t_sql = await best(partial(sqlite.context, "s"))
        line = (
            f"  {size:>8,} {size:>8,} {t_mem * 1e6:>10,.1f} {t_sql * 1e6:>10,.1f} "
            f"{t_sql / t_mem:>7,.0f}x"
        )
        if (postgres := postgres_store(f"context_{size}")) is not None:
            await fill(postgres, records)
            t_pg = await best(partial(postgres.context, "s"))
            t_cold = await cold_context(f"context_{size}")
            line += (
                f" {t_pg * 1e6:>10,.1f} {t_pg / t_mem:>7,.0f}x"
                f" {t_cold * 1e6:>10,.1f} {t_cold / t_mem:>7,.0f}x"
            )
            await postgres.aclose()
        print(line)
        subsumed = frozenset(r.entry.id for r in records[:-50])
        marker = Entry(
            kind=EntryKind.COMPACTION,
            content="summary of the work so far",
            created_at=records[0].entry.created_at,
        )
        for store in (memory, sqlite):
            await store.compact("s", Compaction(marker, subsumed))
        assert len(await sqlite.context("s")) == 51
        folded.append(
            (
                size,
                await best(partial(memory.context, "s")),
                await best(partial(sqlite.context, "s")),
            )
        )
        await sqlite.aclose()
    print("\ncontext() after a compaction folded all but the last 50 entries (51 visible):")
    print(header[: header.index(" postgres")])
    for size, t_mem, t_sql in folded:
        print(
            f"  {size:>8,} {51:>8} {t_mem * 1e6:>10,.1f} {t_sql * 1e6:>10,.1f} "
            f"{t_sql / t_mem:>7,.0f}x"
        )
    first, last = folded[0][2], folded[-1][2]
    print(f"  sqlite, {folded[-1][0]:,} stored vs {folded[0][0]:,} stored: {last / first:.2f}x")


async def appends_at_once(store: Any, tasks: int, each: int, prefix: str) -> float:
    """Appends/s of `tasks` tasks appending `each` entries at once, each to its own session."""
    started = time.perf_counter()
    await asyncio.gather(*(appends_per_second(store, each, f"{prefix}{n}") for n in range(tasks)))
    return tasks * each / (time.perf_counter() - started)


async def context_while_appending(store: Any, tasks: int, each: int, prefix: str) -> float:
    """Median seconds of `context()` of session "s" while `tasks` tasks append."""
    reads: list[float] = []
    writing = asyncio.gather(
        *(appends_per_second(store, each, f"{prefix}{n}") for n in range(tasks))
    )
    while not writing.done():
        started = time.perf_counter()
        await store.context("s")
        reads.append(time.perf_counter() - started)
    await writing
    return statistics.median(reads)


async def bench_drivers(folder: Path, count: int, rounds: int = 4) -> None:
    print(
        "\nasync driver: the store's writer and reader threads (a connection each) vs "
        "asyncio.to_thread (a connection per pool thread); median of interleaved rounds"
    )
    stores: dict[str, Any] = {
        "dedicated": SqliteStore(folder / "dedicated.db"),
        "to_thread": PerThreadConnections(
            folder / "to_thread.db", busy_timeout=5.0, synchronous="full"
        ),
    }
    for store in stores.values():
        await fill(store, conversation(200))
    each = max(count // (4 * rounds), 1)
    figures: dict[str, dict[str, list[float]]] = {name: {} for name in stores}
    for round_ in range(rounds):
        for name in list(stores)[:: 1 if round_ % 2 else -1]:
            store = stores[name]
            measured = {
                "context() of 200 entries, ms": await best(partial(store.context, "s"), 0.3) * 1e3,
                "appends/s, 4 tasks at once": await appends_at_once(store, 4, each, f"a{round_}-"),
                "context() ms while 2 tasks append": 1e3
                * await context_while_appending(store, 2, each, f"b{round_}-"),
            }
            for label, value in measured.items():
                figures[name].setdefault(label, []).append(value)
    print(f"  {'':<36} {'own threads':>12} {'to_thread':>12}")
    for label in figures["dedicated"]:
        a, b = (statistics.median(figures[name][label]) for name in stores)
        print(f"  {label:<36} {a:>12,.2f} {b:>12,.2f}")
    for store in stores.values():
        await store.aclose()


async def bench_stall(folder: Path, size: int) -> None:
    store = SqliteStore(folder / "stall.db")
    await fill(store, conversation(size))
    lags: list[float] = []
    done = asyncio.Event()

    async def heartbeat() -> None:
        while not done.is_set():
            t = time.perf_counter()
            await asyncio.sleep(0.001)
            lags.append(time.perf_counter() - t - 0.001)

    beating = asyncio.create_task(heartbeat())
    started = time.perf_counter()
    await store.context("s")
    took = time.perf_counter() - started
    done.set()
    await beating
    await store.aclose()
    print(
        f"\nevent loop while context() reads {size:,} entries ({took * 1e3:.0f} ms): "
        f"{len(lags)} heartbeats ran, longest stall {max(lags) * 1e3:.1f} ms"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--appends", type=int, default=2000)
    parser.add_argument("--dir", type=Path, default=Path.cwd())
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    folder = Path(tempfile.mkdtemp(prefix="bench-store-", dir=args.dir))
    binaries = postgres_binaries()
    server = TempServer(binaries, durable=True).start() if binaries else None
    if server is not None:
        POSTGRES.append(server.dsn)
    try:
        print(f"SQLite {sqlite3.sqlite_version}, files in {folder}")
        print(f"PostgreSQL from {binaries}" if binaries else "PostgreSQL: no binaries, skipped")
        print()
        await bench_appends(folder, args.appends)
        await bench_context(folder, sizes)
        await bench_drivers(folder, args.appends)
        await bench_stall(folder, sizes[-1])
    finally:
        shutil.rmtree(folder)
        if server is not None:
            server.stop()


if __name__ == "__main__":
    asyncio.run(main())
