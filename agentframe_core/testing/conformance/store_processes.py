"""`StoreProcessConformance`: a session Store shared by real processes, killed with SIGKILL.

`StoreConformance` drives one store instance on one event loop; this kit proves what only
separate processes can: the turn lease holds across processes, and nothing a process was told
is stored is lost when processes die at any moment. Subclass it in your plugin's tests and
provide one fixture, `store_config`: the store's block as it goes under `store:` in an
agentframe config (optionally `store_env` too: environment variables the block needs, such as
the one its `dsn_env` names). Every process builds the store from that block exactly as
`agentframe run` does, through the plugin host, so the store must be installed as a plugin:

    class TestMyStoreProcesses(StoreProcessConformance):
        @pytest.fixture
        def store_config(self, tmp_path):
            return {"use": "mystore", "path": str(tmp_path / "sessions.db")}

The tests:

- eight `agentframe run --json -s S` processes on one session, each with a scripted model (a
  tool call, then an answer naming the process) and the kit's `functions` tool: every run
  exits 0, at least one took a turn of its own (not `coalesced`), the history is whole turns
  (`check_turns_well_formed`), the next request holds no "[no result was recorded" stand-in
  and no reply answers two runs;
- eight churning children (`python -m agentframe_core.testing.storechurn`) on two sessions,
  appending and compacting, killed at random moments and 0 to 4 ms after a compaction
  starts, round after round; then, when all are dead, the checks below;
- one churning child at a time, killed 0 to 4 ms after a compaction starts, twelve lives
  (more, until a kill lands inside a compaction),
  with the checks after every life (with eight children the scheduler blurs the moment of
  the kill: a compaction split into two transactions passes the eight and fails this one).

The checks, through the Store protocol only. `compact` promises that the marker is written and
the entries flagged atomically, and that readers see all of it or none of it, so after any kill:

- `context()` of each session is ordered by `created_at`;
- every acknowledged append and compaction is stored: its id is visible in `context()`, or
  subsumed by a visible marker, or by a marker subsumed by one, and so on (each child says what
  a compaction subsumes before it starts it); an entry hidden by flags whose marker was lost
  fails here;
- no compaction is half applied: no id a visible marker subsumes (`meta["subsumes"]`) is still
  visible; with `ExportableStore`, every marker in `history()` has all of its
  `meta["subsumes"]` stored and flagged subsumed, every subsumed entry is listed by a stored
  marker, and `context()` is exactly the history's claimed, unsubsumed entries in order;
- the kills hit real work: over 100 acknowledged appends, and at least one kill landed inside
  a compaction (after `compacting`, before `compacted`).

`check_after_kills(store_config, acknowledged)` runs last in both kill tests: override it for
what only your store can check (an SQLite integrity check, the rows in SQL).
"""

from __future__ import annotations

import json
import os
import random
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import pytest

from ...contract.errors import UnknownPartError
from ...contract.model import EntryKind
from ...contract.protocols import (
    Closeable,
    ExportableStore,
    LeasingStore,
    RunContext,
    Stack,
    Store,
)
from ...engine.render import NO_RESULT
from ...parts.scripted import ScriptedAdapter
from ...parts.verbatim import VerbatimBuilder
from ..children import Child
from ..cli import cli_command, cli_env
from ..storechurn import build_store
from ._verdicts import unmet
from .lease import check_turns_well_formed

__all__ = ["StoreProcessConformance"]

#: What the kit holds every store to: a store without one fails, told what to add.
REQUIRED = {
    "plugin": "installed as a plugin: each process builds the store from the `store:` block",
    "LeasingStore": "the turn lease, which keeps concurrent runs' turns whole",
}
#: What the kit checks only where the store has it (these add checks; no test skips).
OPTIONAL = {
    "ExportableStore": "`history()` is checked after the kills too",
    "check_after_kills": "a kit hook: the checks only your store can make after the kills",
}

SESSIONS = ("churn-a", "churn-b")
#: The churning child's module.
CHILD = "agentframe_core.testing.storechurn"


@dataclass
class Acknowledged:
    """What the churning children said they had done, over all their lives."""

    appended: set[str] = field(default_factory=set)
    compacted: set[str] = field(default_factory=set)
    #: Markers of compactions a child had started, and not finished, when it was killed.
    in_flight: list[str] = field(default_factory=list)
    #: What each compaction a child started subsumes, by marker id.
    folds: dict[str, list[str]] = field(default_factory=dict)
    kills: int = 0

    def take(self, lines: list[str], started: str | None = None) -> str | None:
        """Record the lines; the marker of the compaction they leave started, if any
        (`started`: the one started before them)."""
        for line in lines:
            verb, _, rest = line.partition(" ")
            entry_id, *folded = rest.split(" ")
            if verb == "appended":
                self.appended.add(entry_id)
            elif verb == "compacting":
                started, self.folds[entry_id] = entry_id, folded
            elif verb == "compacted":
                self.compacted.add(entry_id)
                started = None
        return started

    def ids(self) -> set[str]:
        return self.appended | self.compacted

    def covered(self, visible: set[str]) -> set[str]:
        """The visible ids, and every id a visible marker stands for, transitively."""
        covered, todo = set(visible), list(visible)
        while todo:
            for entry_id in self.folds.get(todo.pop(), []):
                if entry_id not in covered:
                    covered.add(entry_id)
                    todo.append(entry_id)
        return covered


class StoreProcessConformance:
    """Subclass and provide `store_config` (the `store:` block, a fresh store per test);
    override `store_env` for the environment the block needs."""

    pytestmark: ClassVar[Any] = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")

    #: Read-only: the capabilities the kit requires and the optional ones, with what each is.
    required: ClassVar[dict[str, str]] = REQUIRED
    optional: ClassVar[dict[str, str]] = OPTIONAL

    #: Churning children, and the rounds of kills they go through.
    children: ClassVar[int] = 8
    rounds: ClassVar[int] = 6
    #: A child compacts after every this many appends.
    compact_every: ClassVar[int] = 25
    #: Longest wait, in seconds, between a child saying a compaction starts and its kill (the
    #: wait is drawn from 0 to this): less for a store whose compaction is one quick write.
    kill_delay: ClassVar[float] = 0.004
    #: Lives of the child killed as a compaction starts; more, up to five times as many, until
    #: a kill lands inside a compaction (a fast store may finish one within the kill's delay).
    lives: ClassVar[int] = 12
    #: Concurrent `agentframe run` processes on one session.
    runs: ClassVar[int] = 8

    @pytest.fixture
    def store_config(self) -> Mapping[str, Any]:
        raise NotImplementedError(
            "subclass StoreProcessConformance and override the `store_config` fixture"
        )

    @pytest.fixture
    def store_env(self) -> Mapping[str, str]:
        return {}

    def check_after_kills(self, store_config: Mapping[str, Any], acknowledged: set[str]) -> None:
        """Checks only your store can make on what the killed children left: `store_config`
        is the `store:` block they used, `acknowledged` the ids (`Entry.id`, `str`) of every
        entry and compaction marker a child was told is stored, over all sessions and lives.
        The kit's own checks went through the Store protocol; this does nothing by default."""

    # -- fixtures -----------------------------------------------------------------------------

    @pytest.fixture
    def config_file(self, tmp_path: Path, store_config: Mapping[str, Any]) -> Path:
        """A config file holding only the store block (JSON is YAML)."""
        file = tmp_path / "store.yaml"
        file.write_text(json.dumps({"store": dict(store_config)}))
        return file

    @pytest.fixture
    def child_env(self, tmp_path: Path, store_env: Mapping[str, str]) -> dict[str, str]:
        return {**cli_env(tmp_path), "HOME": str(tmp_path), **store_env}

    @pytest.fixture
    async def built_store(
        self, config_file: Path, store_env: Mapping[str, str], monkeypatch: pytest.MonkeyPatch
    ) -> AsyncIterator[Any]:
        """The test's own instance, built as the children build theirs."""
        for name, value in store_env.items():
            monkeypatch.setenv(name, value)
        try:
            store = build_store(config_file)
        except UnknownPartError as err:
            pytest.fail(
                f"the kit's processes build the store from its `store:` block through the "
                f"plugin host, so it must be installed as a plugin (an entry point in the "
                f"group `agentframe`, e.g. `pip install -e .`): {err}",
                pytrace=False,
            )
        await store.sessions()  # created (and migrated) before the children start
        yield store
        if isinstance(store, Closeable):
            await store.aclose()

    # -- eight `agentframe run` processes on one session ---------------------------------------

    def _run_config(self, tmp_path: Path, store_config: Mapping[str, Any], n: int) -> Path:
        replies = [
            {"tool_calls": [{"name": "basename", "arguments": {"p": f"/runs/{n}"}}], "delay": 0.05},
            {"content": f"answer of run {n}", "delay": 0.05},
        ]
        config = {
            "adapter": {"use": "scripted", "replies": replies, "cycle": True},
            "store": dict(store_config),
            "tools": [{"use": "functions", "import": ["os.path:basename"]}],
        }
        file = tmp_path / f"run{n}.yaml"
        file.write_text(json.dumps(config))
        return file

    async def test_concurrent_runs_on_one_session_leave_whole_turns(
        self,
        tmp_path: Path,
        store_config: Mapping[str, Any],
        child_env: dict[str, str],
        built_store: Store,
    ) -> None:
        if not isinstance(built_store, LeasingStore):
            unmet(built_store, LeasingStore, role="store", since="0.2")
        files = [self._run_config(tmp_path, store_config, n) for n in range(self.runs)]
        commands = [
            cli_command("--config", str(file), "run", "--json", "-s", "S", f"q {n}")
            for n, file in enumerate(files)
        ]
        runs = [Child(command, env=child_env, cwd=tmp_path) for command in commands]
        try:
            outputs = [run.finish_ok(timeout=180) for run in runs]
        finally:
            for run in runs:
                run.close()
        results = [json.loads("\n".join(output)) for output in outputs]
        assert any(not result.get("coalesced") for result in results), (
            f"of {self.runs} `agentframe run` processes on one session, none took a turn of "
            f"its own (all coalesced): {results}"
        )
        entries = await built_store.context("S")
        check_turns_well_formed(entries, {f"q {n}": r["reply"] for n, r in enumerate(results)})
        stack = Stack(ScriptedAdapter(), built_store, VerbatimBuilder())
        messages = await stack.context.build(RunContext("S", stack, None), "system")
        assert not any(NO_RESULT in message.content for message in messages), (
            "the next request holds a tool call without its result: two runs' turns "
            "interleaved in the store"
        )
        replies = [m.content for m in messages if m.role == "assistant" and m.content]
        assert all(reply.count("answer of run") <= 1 for reply in replies), (
            f"a stored reply answers two runs at once: {replies}"
        )

    # -- churning children, killed again and again ---------------------------------------------

    @pytest.fixture
    def make_churn(
        self,
        tmp_path: Path,
        config_file: Path,
        child_env: dict[str, str],
        store_config: Mapping[str, Any],
    ) -> Iterator[Callable[[int], _Churn]]:
        """`make_churn(count)`: `count` churning children (none started yet), with a random
        seed the test prints; whatever still runs is killed after the test."""
        seed = int.from_bytes(os.urandom(4))
        print(f"random seed {seed}")
        made: list[_Churn] = []

        def make(count: int) -> _Churn:
            rng = random.Random(seed)
            made.append(_Churn(self, (config_file, store_config), child_env, tmp_path, rng, count))
            return made[-1]

        yield make
        for churn in made:
            churn.kill_all()

    async def test_children_killed_again_and_again_lose_nothing(
        self, make_churn: Callable[[int], _Churn], built_store: Store
    ) -> None:
        churn = make_churn(self.children)
        for _ in range(self.rounds):
            churn.one_round()
        churn.kill_all()
        acknowledged = churn.acknowledged
        await _check_sessions(built_store, acknowledged)
        print(
            f"{acknowledged.kills} kills of {self.children} processes on {len(SESSIONS)} "
            f"sessions: {len(acknowledged.appended)} acknowledged appends and "
            f"{len(acknowledged.compacted)} compactions, all stored; "
            f"{len(acknowledged.in_flight)} kills inside a compaction"
        )
        assert len(acknowledged.appended) > 100, "the children did too little to prove anything"
        assert acknowledged.in_flight, "no kill landed inside a compaction"
        self.check_after_kills(churn.store_config, acknowledged.ids())

    async def test_a_child_killed_as_a_compaction_starts_leaves_it_whole_or_absent(
        self, make_churn: Callable[[int], _Churn], built_store: Store
    ) -> None:
        """One child at a time, so that the kill lands within a few ms of the compaction's
        start (with eight, the scheduler blurs it); the checks after every life."""
        churn = make_churn(1)
        in_flight = churn.acknowledged.in_flight
        lives = 0
        while lives < self.lives or (not in_flight and lives < 5 * self.lives):
            churn.start_dead()
            churn.kill(0, at_compaction=True)
            await _check_sessions(built_store, churn.acknowledged)
            lives += 1
        stored = {e.id for e in await built_store.context(SESSIONS[0])}
        committed = len(churn.acknowledged.covered(stored) & set(in_flight))
        print(f"{len(in_flight)} of {lives} kills inside a compaction ({committed} committed)")
        assert in_flight, "no kill landed inside a compaction"
        self.check_after_kills(churn.store_config, churn.acknowledged.ids())


class _Churn:
    """The churning children of one test, and what they acknowledged."""

    def __init__(
        self,
        kit: StoreProcessConformance,
        config: tuple[Path, Mapping[str, Any]],
        env: dict[str, str],
        cwd: Path,
        rng: random.Random,
        count: int,
    ) -> None:
        self.kit, self.env, self.cwd, self.rng = kit, env, cwd, rng
        #: The config file the children read, and the store block in it.
        self.config_file, self.store_config = config
        self.alive: list[Child | None] = [None] * count
        #: The compaction each child has said it started and not yet finished.
        self.started: list[str | None] = [None] * count
        self.acknowledged = Acknowledged()

    def _start(self, n: int) -> Child:
        session_id, every = SESSIONS[n % len(SESSIONS)], str(self.kit.compact_every)
        command = [sys.executable, "-m", CHILD, str(self.config_file), session_id, every]
        return Child(command, env=self.env, cwd=self.cwd)

    def start_dead(self) -> None:
        """Start every dead child, and wait until all are ready."""
        started = [n for n, child in enumerate(self.alive) if child is None]
        for n in started:
            self.alive[n] = self._start(n)
        for n in started:
            child = self.alive[n]
            assert child is not None, f"child {n} was just started"
            try:
                ready = child.line(timeout=120)
            except TimeoutError:
                ready = "nothing in 120 s"
            assert ready == "ready", f"child {n} did not start ({ready}): {child.stderr()}"

    def one_round(self) -> None:
        """Start the dead children, let all work at once, then kill some: at once, or just
        as their next compaction starts."""
        self.start_dead()
        time.sleep(self.rng.uniform(0.4, 1.2))
        for n, child in enumerate(self.alive):
            assert child is not None, f"child {n} was just started"
            self.started[n] = self.acknowledged.take(child.said(), self.started[n])
            assert child.process.poll() is None, f"child {n} died: {child.stderr()}"
            chance = self.rng.random()
            if chance < 0.25:
                self.kill(n, at_compaction=True)
            elif chance < 0.6:
                self.kill(n, at_compaction=False)

    def kill(self, n: int, *, at_compaction: bool) -> None:
        """SIGKILL child `n`: at once, or up to `kill_delay` after it says a compaction
        starts."""
        child = self.alive[n]
        assert child is not None, f"child {n} is not running: the kit kills only live children"
        if at_compaction:
            deadline = time.monotonic() + 60
            while (line := child.line(max(deadline - time.monotonic(), 0.01))) is not None:
                self.started[n] = self.acknowledged.take([line], self.started[n])
                if line.startswith("compacting "):
                    break
            assert line is not None, f"child {n} died: {child.stderr()}"
            time.sleep(self.rng.uniform(0.0, self.kit.kill_delay))
        started = self.acknowledged.take(child.kill(), self.started[n])
        if started is not None:
            self.acknowledged.in_flight.append(started)
        self.acknowledged.kills += 1
        child.close()
        self.alive[n], self.started[n] = None, None

    def kill_all(self) -> None:
        for n, child in enumerate(self.alive):
            if child is not None:
                self.kill(n, at_compaction=False)


async def _check_sessions(store: Store, acknowledged: Acknowledged) -> None:
    """The checks of the module docstring, through the Store protocol."""
    found: set[str] = set()
    for session_id in SESSIONS:
        context = await store.context(session_id)
        stamps = [entry.created_at for entry in context]
        assert stamps == sorted(stamps), f"{session_id}: context is not ordered by created_at"
        visible = {entry.id for entry in context}
        found |= acknowledged.covered(visible)
        for marker in (e for e in context if e.kind is EntryKind.COMPACTION):
            shown = set(marker.meta["subsumes"]) & visible
            assert not shown, f"compaction {marker.id} is half applied: {len(shown)} shown"
        if isinstance(store, ExportableStore):
            await _check_history(store, session_id, context)
    lost = acknowledged.appended - found
    assert not lost, f"{len(lost)} acknowledged appends are missing, e.g. {sorted(lost)[:3]}"
    lost = acknowledged.compacted - found
    assert not lost, f"{len(lost)} acknowledged compactions are missing, e.g. {sorted(lost)[:3]}"


async def _check_history(store: ExportableStore, session_id: str, context: list[Any]) -> None:
    records = await store.history(session_id)
    stored = {record.entry.id for record in records}
    subsumed = {record.entry.id for record in records if record.subsumed}
    claimed: set[str] = set()
    for record in records:
        if record.entry.kind is EntryKind.COMPACTION:
            folds = set(record.entry.meta["subsumes"])
            assert folds <= stored, f"compaction {record.entry.id} folds entries never stored"
            assert folds <= subsumed, f"compaction {record.entry.id} is half applied"
            claimed |= folds
    unclaimed = subsumed - claimed
    assert not unclaimed, f"{len(unclaimed)} entries are flagged subsumed by no stored compaction"
    shown = [r.entry for r in records if not (r.pending or r.subsumed)]
    assert [e.id for e in shown] == [e.id for e in context], "context() disagrees with history()"
