"""agentframe's own API for pages that show what happened: sessions searched and paged, a
session's whole history with its compactions and children, traces, the kg folder, the
stack, each showing only the caller's own, and the server's own origin let through."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from agentframe_core import Compaction, Entry, EntryKind

ALICE, BOB = "alice-key-0123456789abcdef", "bob-key-0123456789abcdef"
KEYS = {"AGENTFRAME_SERVE_API_KEYS": f"alice={ALICE},bob={BOB}"}


def client(url: str, key: str) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=url, headers={"authorization": f"Bearer {key}"})


async def write(store: Any, session: str, *entries: Entry) -> list[Entry]:
    for entry in entries:
        await store.append(session, entry)
    return list(entries)


async def test_sessions_are_searched_by_title_and_by_what_entries_say(serve: Any) -> None:
    served = await serve(["unused"], environ=KEYS)
    store = served.stack.store
    await write(store, "alice.rivers", Entry(kind=EntryKind.USER, content="Rivers of Europe"))
    await write(
        store,
        "alice.zebras",
        Entry(kind=EntryKind.USER, content="Where do zebras live?"),
        Entry(kind=EntryKind.ASSISTANT, content="On the African savannah, in herds."),
    )
    await write(store, "bob.zebras", Entry(kind=EntryKind.USER, content="savannah savannah"))
    record = Entry(kind=EntryKind.NOTIFICATION, content="savannah", meta={"value": {}})
    await write(store, "~serve.response.alice.savannah", record)  # a record: never listed
    async with client(served.url, ALICE) as alice:
        found = (await alice.get("/v1/sessions", params={"q": "savannah"})).json()
        assert [row["id"] for row in found["data"]] == ["zebras"]  # not bob's
        assert found["total"] == 1  # the matches, not all of alice's sessions
        empty = (await alice.get("/v1/sessions", params={"q": "savannah", "offset": 1})).json()
        assert empty["data"] == [] and empty["total"] == 1
        match = found["data"][0]["match"]
        assert match["field"] == "entry" and match["kind"] == "assistant"
        assert "African savannah" in match["snippet"]
        titled = (await alice.get("/v1/sessions", params={"q": "RIVERS"})).json()
        assert [row["id"] for row in titled["data"]] == ["rivers"]
        assert titled["data"][0]["match"] == {"field": "title"}
        paged = (await alice.get("/v1/sessions", params={"limit": 1, "offset": 1})).json()
        assert paged["total"] == 2 and [r["id"] for r in paged["data"]] == ["rivers"]
        bad = await alice.get("/v1/sessions", params={"limit": "-1"})
        assert bad.status_code == 400 and bad.json()["error"]["param"] == "limit"
        long = await alice.get("/v1/sessions", params={"q": "x" * 201})
        assert long.status_code == 400 and long.json()["error"]["param"] == "q"


async def test_history_shows_compactions_and_children_only_of_ones_own(serve: Any) -> None:
    served = await serve(["unused"], environ=KEYS)
    store = served.stack.store
    folded = await write(
        store,
        "alice.parent",
        Entry(kind=EntryKind.USER, content="Tell me about rivers"),
        Entry(kind=EntryKind.ASSISTANT, content="The Danube flows through ten countries."),
    )
    marker = Entry(kind=EntryKind.COMPACTION, content="Rivers: the Danube.", tag="shaper")
    await store.compact("alice.parent", Compaction(marker, frozenset(e.id for e in folded)))
    children = [{"session_id": "kid", "agent": "other", "status": "done"}]
    for session in ("alice.parent", "alice.stranger", "bob.parent"):
        await write(
            store,
            session,
            Entry(kind=EntryKind.TOOL_CALL, content="{}", tool_call_id="c1", tool_name="subagent"),
            Entry(
                kind=EntryKind.TOOL_RESULT,
                content="hi",
                tool_call_id="c1",
                tool_name="subagent",
                meta={"children": children},
            ),
        )
    link = {"parent": "alice.parent", "tool_call_id": "c1", "agent": "other", "via": "subagent"}
    await write(store, "kid", Entry(kind=EntryKind.USER, content="Say hi", origin=link))
    async with client(served.url, ALICE) as alice, client(served.url, BOB) as bob:
        history = (await alice.get("/v1/sessions/parent/history")).json()
        kinds = [(e["kind"], e["subsumed"]) for e in history["entries"]]
        assert kinds[:3] == [("user", True), ("assistant", True), ("compaction", False)]
        (compaction,) = history["compactions"]
        assert compaction["id"] == marker.id
        assert compaction["replaced"] == [e.id for e in folded]
        assert compaction["chars_before"] == sum(len(e.content) for e in folded)
        assert compaction["chars_after"] == len(marker.content)
        assert history["children"][0]["session_id"] == "kid"
        child = (await alice.get("/v1/sessions/parent/children/kid")).json()
        assert child["parent"] == "parent" and child["entries"][0]["content"] == "Say hi"
        # listed by a session the child does not link back to, or by another key's session
        assert (await alice.get("/v1/sessions/stranger/children/kid")).status_code == 404
        assert (await bob.get("/v1/sessions/parent/children/kid")).status_code == 404
        assert (await bob.get("/v1/sessions/parent/history")).json()["compactions"] == []


async def test_traces_need_the_tracing_plugin_and_show_only_ones_own(
    serve: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """agentframe-otel adds `/v1/traces` (its `agentframe_serve.routes` entry point), answered
    as the server's own routes are: the caller's key checked first."""
    monkeypatch.setitem(sys.modules, "agentframe_otel.routes", None)  # not installed
    bare = await serve(["unused"], environ=KEYS)
    async with client(bare.url, ALICE) as alice:
        off = await alice.get("/v1/traces")
        assert off.status_code == 404 and "agentframe-otel" in off.json()["error"]["message"]
    monkeypatch.undo()
    asked: list[dict[str, Any]] = []

    def read_traces(config: Path | None = None, **query: Any) -> dict[str, Any]:
        asked.append(query)
        mine = {"trace_id": "a" * 32, "run_id": "r1", "session_id": "alice.s", "spans": []}
        theirs = {**mine, "trace_id": "b" * 32, "session_id": "bob.s"}
        return {"traces": [mine, theirs]}

    import agentframe_otel.routes

    monkeypatch.setattr(agentframe_otel.routes, "read_traces", read_traces)
    served = await serve(["unused"], environ=KEYS)
    async with client(served.url, ALICE) as alice, httpx.AsyncClient(base_url=served.url) as anon:
        assert (await anon.get("/v1/traces")).status_code == 401
        shown = (await alice.get("/v1/traces", params={"session_id": "s", "limit": 5})).json()
        assert [t["trace_id"] for t in shown["traces"]] == ["a" * 32]
        assert shown["traces"][0]["session_id"] == "s"
        assert asked == [{"session_id": "alice.s", "run_id": None, "limit": 5}]
        assert (await alice.get("/v1/traces", params={"limit": "0"})).status_code == 400
        bad = await alice.get("/v1/traces", params={"session_id": "../x"})
        assert bad.status_code == 400 and bad.json()["error"]["param"] == "session_id"


def kg_folder(root: Path) -> Path:
    folder = root / "mykg"
    (folder / "export").mkdir(parents=True)
    a, b = "https://x.org/id/Person/Ada", "https://x.org/id/Org/Society"
    p, rdf = "https://x.org/schema#memberOf", "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
    nodes = [
        {"id": a, "types": ["Person"], "label": "Ada"},
        {"id": b, "types": ["Org"], "label": "Society"},
    ]
    (folder / "export" / "nodes.jsonl").write_text("".join(json.dumps(n) + "\n" for n in nodes))
    edge = {"source": a, "predicate": "memberOf", "target": b}
    (folder / "export" / "edges.jsonl").write_text(json.dumps(edge) + "\n")
    s = "https://x.org/id/stmt/1"
    (folder / "export" / "graph.nt").write_text(
        f"<{a}> <{p}> <{b}> .\n<{s}> <{rdf}type> <{rdf}Statement> .\n<{s}> <{rdf}subject> <{a}> .\n"
        f"<{s}> <{rdf}predicate> <{p}> .\n<{s}> <{rdf}object> <{b}> .\n"
        f"<{s}> <http://www.w3.org/ns/prov#wasDerivedFrom> <https://x.org/id/chunk/d.md#0> .\n"
    )
    chunk = {"id": "d.md#0", "doc": "d.md", "index": 0, "text": "Ada joined the Society."}
    (folder / "chunks.jsonl").write_text(json.dumps(chunk) + "\n")
    (folder / "validation_report.txt").write_text("Validation Report\nConforms: True\n")
    return folder


async def test_the_kg_folder_is_the_configs_and_stays_in_it(serve: Any, tmp_path: Path) -> None:
    bare = await serve(["unused"])
    async with httpx.AsyncClient(base_url=bare.url) as http:
        assert (await http.get("/v1/kg")).status_code == 404
    folder = kg_folder(tmp_path)
    served = await serve(["unused"], serve={"kg_folder": "mykg"})
    async with httpx.AsyncClient(base_url=served.url) as http:
        kg = (await http.get("/v1/kg", params={"folder": "/etc"})).json()  # ignored
        assert [n["label"] for n in kg["nodes"]] == ["Ada", "Society"]
        assert kg["edges"][0]["chunks"] == ["d.md#0"]
        assert kg["chunks"]["d.md#0"]["text"] == "Ada joined the Society."
        assert kg["shacl"]["conforms"] is True
        (folder / "chunks.jsonl").unlink()
        (folder / "chunks.jsonl").symlink_to("/etc/passwd")
        escaped = await http.get("/v1/kg")
        assert escaped.status_code == 500 and "leads out" in escaped.json()["error"]["message"]
        assert "root:" not in escaped.text


async def test_the_stack_with_secrets_masked(serve: Any) -> None:
    servers = {
        "gh": {"command": "mcp-gh", "args": ["--token", "tok1", "--api-key=tok2", "--port", "8"]},
        "web": {"type": "http", "url": "http://127.0.0.1:9/mcp?key=tok3&region=eu"},
    }
    served = await serve(
        ["unused"],
        serve={"public_url": "https://u:hunter2@agents.example"},
        extra_tools=[{"use": "mcp", "servers": servers, "claude_plugins": False}],
    )
    async with httpx.AsyncClient(base_url=served.url) as http:
        stack = (await http.get("/v1/stack")).json()
    assert "helper" in stack["agents"]
    assert "agentframe-serve" in {p["distribution"] for p in stack["plugins"]}
    data = stack["config"]["data"]
    assert data["adapter"]["use"] == "scripted"
    assert data["serve"]["public_url"] == "https://***@agents.example"
    mcp = data["tools"][1]["servers"]
    assert mcp["gh"]["args"] == ["--token", "***", "--api-key=***", "--port", "8"]
    assert mcp["web"]["url"] == "http://127.0.0.1:9/mcp?key=***&region=eu"
    for secret in ("hunter2", "tok1", "tok2", "tok3"):
        assert secret not in json.dumps(stack)


async def test_the_servers_own_origin_may_post(serve: Any) -> None:
    served = await serve(["Hello."])
    body = {"model": "helper", "messages": [{"role": "user", "content": "hi"}]}
    async with httpx.AsyncClient(base_url=served.url) as http:
        own = await http.post("/v1/chat/completions", json=body, headers={"origin": served.url})
        assert own.status_code == 200
        other = await http.post(
            "/v1/chat/completions", json=body, headers={"origin": "http://localhost:1"}
        )
        assert other.status_code == 403
