"""A part that breaks a kit's rule is told which values broke it, not a bare AssertionError."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BROKEN_PARTS = """
import pytest
from agentframe_core import MemoryStore, Snippet, Tool, ToolCall, ToolResult
from agentframe_core.testing import (
    RetrieverConformance, StoreConformance, ToolDispatcherConformance,
)


class Greedy:
    async def retrieve(self, query, *, ctx, budget_tokens):
        return [Snippet("x" * 100, "a", 1.0)]


class TestGreedy(RetrieverConformance):
    @pytest.fixture
    def retriever(self):
        return Greedy()

    @pytest.fixture
    def query(self):
        return "x"


class OldestFirst(MemoryStore):
    async def sessions(self):
        return list(reversed(await super().sessions()))


class TestOldestFirst(StoreConformance):
    @pytest.fixture
    def store(self):
        return OldestFirst()


class Lenient:
    async def tools(self, ctx):
        return [Tool(name="echo", description="Echo.", parameters={"type": "object"})]

    async def dispatch(self, call, ctx):
        return ToolResult("whatever you asked")


class TestLenient(ToolDispatcherConformance):
    @pytest.fixture
    def dispatcher(self):
        return Lenient()

    @pytest.fixture
    def sample_calls(self):
        return [ToolCall("1", "echo", {})]
"""


def test_kit_failures_show_the_values(tmp_path: Path) -> None:
    (tmp_path / "test_broken.py").write_text(BROKEN_PARTS)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-o",
            "asyncio_mode=auto",
            "-k",
            "budget or recency or unknown_tool",
            "test_broken.py",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    out = done.stdout
    assert "a budget of 0 tokens allows 0 in total" in out and "assert 100 <= 0" in out, out
    assert "assert ['kit-" in out, out  # the session ids in the wrong order
    assert "a call to the unknown tool 'no-such-tool-anywhere' did not fail" in out, out
    assert "ToolResult(content='whatever you asked'" in out, out


PARTS_LACKING_AND_BREAKING = """
import pytest
from agentframe_core import MemoryStore
from agentframe_core.testing import (
    AdapterConformance, AgentLayout, AgentLoaderConformance, RetrieverConformance,
    ScriptedAdapter, StoreConformance,
)


class FirstContract:
    '''A store written for 0.1: the seven Store methods, no lease, no optional capability.'''

    def __init__(self):
        self.inner = MemoryStore()

    async def append(self, session_id, entry):
        await self.inner.append(session_id, entry)

    async def enqueue(self, session_id, entry):
        await self.inner.enqueue(session_id, entry)

    async def claim_pending(self, session_id, at):
        return await self.inner.claim_pending(session_id, at)

    async def context(self, session_id):
        return await self.inner.context(session_id)

    async def compact(self, session_id, compaction):
        await self.inner.compact(session_id, compaction)

    async def sessions(self):
        return await self.inner.sessions()

    async def delete(self, session_id):
        await self.inner.delete(session_id)


class TestFirstContract(StoreConformance):
    @pytest.fixture
    def store(self):
        return FirstContract()


class RenewsRevoked(MemoryStore):
    '''Its holder renews a lease whatever happened to it, revoked or taken.'''

    def __init__(self):
        super().__init__()
        self.holders = {}

    async def acquire_lease(self, session_id, holder, ttl):
        if self.holders.get(session_id) == holder:
            return True
        taken = await super().acquire_lease(session_id, holder, ttl)
        if taken:
            self.holders[session_id] = holder
        return taken


class TestRenewsRevoked(StoreConformance):
    @pytest.fixture
    def store(self):
        return RenewsRevoked()


class Forgiving(MemoryStore):
    '''Ignores an entry whose id it holds, instead of refusing it.'''

    async def append(self, session_id, entry):
        if entry.id not in {e.id for e in await self.context(session_id)}:
            await super().append(session_id, entry)


class TestForgiving(StoreConformance):
    @pytest.fixture
    def store(self):
        return Forgiving()


class TestPlainAdapter(AdapterConformance):
    @pytest.fixture
    def adapter(self, conformance_scenario):
        return ScriptedAdapter([conformance_scenario.example], cycle=True, native_tools=False)


class Nothing:
    def discover(self, cwd):
        return []


class TestProjectOnly(AgentLoaderConformance):
    layout = AgentLayout(project=".mine/agents", user=None)

    @pytest.fixture
    def loader(self):
        return Nothing()


class TestNotARetriever(RetrieverConformance):
    @pytest.fixture
    def retriever(self):
        return object()

    @pytest.fixture
    def query(self):
        return "x"
"""


def test_kits_say_what_is_required_what_is_optional_and_what_broke(tmp_path: Path) -> None:
    """A store written for the first contract fails the lease tests, told what to add; a
    missing optional capability skips, saying which and what it gives; a broken lease rule or
    a missing ValueError fails in words (lease.py was not rewritten, and pytest.raises said
    only DID NOT RAISE)."""
    (tmp_path / "test_lacking.py").write_text(PARTS_LACKING_AND_BREAKING)
    tests = [
        "TestFirstContract and (held_by_one or history_shows or torn_tail or search_reaches)",
        "TestRenewsRevoked and deleted_under_its_lease",
        "TestForgiving and stored_once",
        "TestPlainAdapter and (tool_call_streamed or arrives_intact)",
        "TestProjectOnly and user_folder",
        "TestNotARetriever and is_a_retriever",
    ]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-rs",
            "-p",
            "no:cacheprovider",
            "-o",
            "asyncio_mode=auto",
            "-k",
            " or ".join(f"({test})" for test in tests),
            "test_lacking.py",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    out = " ".join(done.stdout.split())  # pytest wraps long lines
    assert "4 failed, 6 skipped" in out, out
    # a required capability: named, with what to add and where the upgrade is explained
    assert (
        "FirstContract does not implement LeasingStore, which every store must (required "
        "since 0.2: see 'Upgrading from 0.1' in docs/plugin-authoring.md): add "
        "`acquire_lease`, `release_lease` and `lease_revoked`"
    ) in out, out
    assert "object does not implement Retriever, which every retriever must: add `retrieve`" in out
    # optional capabilities: the part (or the kit subclass) and what it would give
    for skipped in (
        "FirstContract does not implement ExportableStore: optional (`agentframe sessions "
        "export` and `import`); add `history` and `restore` to have this test run",
        "FirstContract does not implement SearchableStore: optional",
        "TestFirstContract does not override `write_torn_tail`: optional (the restart test of "
        "a store that keeps files); override `reopened` and `write_torn_tail`",
        "ScriptedAdapter does not declare native_tools (capabilities.native_tools is False)",
        "TestPlainAdapter does not override `received_text`: optional",
        "TestProjectOnly has no user folder (`layout.user` is None): optional",
    ):
        assert skipped in out, f"{skipped!r} not in {out}"
    # broken rules, in words
    assert (
        "renewing a revoked lease (its session was deleted) must return False, so the running "
        "turn learns it: acquire_lease() by its holder returned True"
    ) in out, out
    assert (
        "append() of an id the session already holds must raise ValueError; it returned normally"
    ) in out, out
