"""A client that leaves cancels its run, SIGKILL loses no acknowledged entry, SIGTERM
drains within its bound, and the logs hold no key, prompt or header value."""

from __future__ import annotations

import contextlib
import json
import signal
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from servekit import HERE

from agentframe_core.testing import eventually, eventually_async, run_cli

NAP = ["servetools:nap", "agentframe_core.examples:add"]


def nap(seconds: float, started: Path) -> dict[str, Any]:
    """The model asks for a nap, which creates the file `started` when it begins."""
    arguments = {"seconds": seconds, "started": str(started)}
    return {"tool_calls": [{"name": "nap", "arguments": arguments}]}


def ask(text: str, *, stream: bool = False, session: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"model": "helper", "messages": [{"role": "user", "content": text}]}
    if stream:
        body["stream"] = True
    if session:
        body["session_id"] = session
    return body


def turn_running(root: Path) -> bool:
    """Whether a turn holds its session's lease in the project's SQLite store: a request is
    being answered."""
    try:
        with contextlib.closing(
            sqlite3.connect(f"file:{root / 'sessions.db'}?mode=ro", uri=True)
        ) as db:
            return bool(db.execute("SELECT count(*) FROM leases").fetchone()[0])
    except sqlite3.OperationalError:  # not created yet
        return False


async def test_a_client_leaving_mid_stream_cancels_its_run(serve: Any, tmp_path: Path) -> None:
    started = tmp_path / "napping"
    served = await serve([nap(30, started), "after the nap", "next answer"], tools=NAP)
    async with httpx.AsyncClient(base_url=served.url) as http:
        async with http.stream(
            "POST", "/v1/chat/completions", json=ask("nap", stream=True, session="s1")
        ) as response:
            lines = response.aiter_lines()  # kept open: leaving it would close the stream
            assert (await anext(lines)).startswith("data:")

            # the model asked for the nap, which is running: leave
            await eventually_async(started.exists, what="the nap to start")
        store_id = "local.s1"

        async def interrupted() -> bool:
            entries = await served.stack.store.context(store_id)
            return any(
                e.kind.value == "tool_result" and "interrupted" in e.content for e in entries
            )

        await eventually_async(interrupted, what="the nap to be interrupted")
        kinds = [kind for kind, _ in await served.entries(store_id)]
        assert kinds == ["user", "assistant", "tool_call", "tool_result"]
        started = time.monotonic()
        answer = await http.post("/v1/chat/completions", json=ask("again", session="s1"))
        assert time.monotonic() - started < 5  # the cancelled run let go of the session
    assert answer.json()["choices"][0]["message"]["content"] == "after the nap"
    assert len(served.requests) == 2  # the nap was never answered by the model


async def test_a_client_leaving_a_plain_request_cancels_its_run(serve: Any, tmp_path: Path) -> None:
    served = await serve([nap(30, tmp_path / "napping")], tools=NAP)
    async with httpx.AsyncClient(base_url=served.url, timeout=0.5) as http:
        with contextlib.suppress(httpx.ReadTimeout):
            await http.post("/v1/chat/completions", json=ask("nap", session="s2"))

    async def interrupted() -> bool:
        entries = await served.stack.store.context("local.s2")
        return any("interrupted" in e.content for e in entries)

    await eventually_async(interrupted, what="the nap to be interrupted")


def _stream_until(
    url: str, body: dict[str, Any], wanted: str | None, seen: list[str], ready: threading.Event
) -> None:
    """Read the stream into `seen`; set `ready` once the line `wanted` came (with None, only
    when the stream ends)."""
    try:
        with (
            httpx.Client(timeout=60) as http,
            http.stream("POST", f"{url}/v1/chat/completions", json=body) as response,
        ):
            seen.append(response.headers.get("x-session-id", ""))
            for line in response.iter_lines():
                seen.append(line)
                if line == wanted:
                    ready.set()
    except httpx.HTTPError:
        pass
    finally:
        ready.set()


def test_sigkill_mid_stream_loses_no_acknowledged_entry(serve_process: Any, tmp_path: Path) -> None:
    replies = [
        {"content": "Adding.", "tool_calls": [{"name": "add", "arguments": {"a": 2, "b": 3}}]},
        {"content": "never said", "delay": 60},
    ]
    process, url = serve_process(replies)
    seen: list[str] = []
    ready = threading.Event()
    body = ask("2+3?", stream=True, session="killed")
    reader = threading.Thread(
        target=_stream_until, args=(url, body, ": tool add done", seen, ready)
    )
    reader.start()
    assert ready.wait(30) and ": tool add done" in seen
    process.send_signal(signal.SIGKILL)
    process.wait(30)
    reader.join(30)
    shown = run_cli(tmp_path, "sessions", "show", "local.killed", "--json")
    assert shown.returncode == 0, shown.stderr
    entries = [(e["kind"], e["content"]) for e in json.loads(shown.stdout)]
    assert entries == [
        ("user", "2+3?"),
        ("assistant", "Adding."),
        ("tool_call", '{"a": 2, "b": 3}'),
        ("tool_result", "5.0"),
    ]


def test_sigterm_lets_a_running_request_finish(serve_process: Any, tmp_path: Path) -> None:
    process, url = serve_process([{"content": "finished in time", "delay": 1.5}])
    answers: list[httpx.Response] = []
    thread = threading.Thread(
        target=lambda: answers.append(
            httpx.post(f"{url}/v1/chat/completions", json=ask("hi"), timeout=30)
        )
    )
    thread.start()
    eventually(lambda: turn_running(tmp_path), what="the request to be answered")
    process.send_signal(signal.SIGTERM)
    thread.join(30)
    assert answers[0].json()["choices"][0]["message"]["content"] == "finished in time"
    # after draining, uvicorn re-raises the SIGTERM it caught: a clean stop, by that signal
    assert process.wait(30) == -signal.SIGTERM


def test_sigterm_cancels_what_outlasts_the_drain_bound(
    serve_process: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(HERE))  # `sessions show` reads the same config
    napping = tmp_path / "napping"
    process, url = serve_process([nap(60, napping)], tools=NAP)
    seen: list[str] = []
    ready = threading.Event()
    reader = threading.Thread(
        target=_stream_until,
        args=(url, ask("nap", stream=True, session="drained"), None, seen, ready),
    )
    reader.start()
    eventually(napping.exists, what="the nap to start")
    started = time.monotonic()
    process.send_signal(signal.SIGTERM)
    process.wait(30)
    took = time.monotonic() - started
    reader.join(30)
    assert took < 10 + 5, f"the drain took {took:.1f} s (bound: serve.drain_seconds, 10)"
    shown = run_cli(tmp_path, "sessions", "show", "local.drained", "--json")
    logs = process.stderr.read()
    assert shown.returncode == 0, shown.stderr + logs
    assert "Traceback" not in logs and "cancelled: the server is stopping" in logs
    entries = [(e["kind"], e["content"]) for e in json.loads(shown.stdout)]
    assert [kind for kind, _ in entries] == ["user", "assistant", "tool_call", "tool_result"]
    assert "interrupted" in entries[-1][1]


def test_no_key_prompt_or_header_value_reaches_the_logs(serve_process: Any) -> None:
    key = "logkey-0123456789abcdef"
    process, url = serve_process(
        ["a reply", "another"], verbose=True, AGENTFRAME_SERVE_API_KEYS=f"ops={key}"
    )
    prompt, header = "PROMPT-7f3a-confidential", "HEADER-9c1d-value"
    with httpx.Client(
        base_url=url, headers={"authorization": f"Bearer {key}", "x-custom": header}
    ) as http:
        assert http.post("/v1/chat/completions", json=ask(prompt)).status_code == 200
        a2a = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "message/send",
            "params": {
                "message": {
                    "kind": "message",
                    "messageId": "m1",
                    "contextId": "c1",
                    "role": "user",
                    "parts": [{"kind": "text", "text": prompt}],
                }
            },
        }
        assert http.post("/a2a/helper", json=a2a).status_code == 200
        assert (
            http.post("/v1/chat/completions", json=ask(prompt)).status_code == 500
        )  # script ran out
        assert (
            http.post("/v1/chat/completions", json={**ask(prompt), "model": "x"}).status_code == 404
        )
        refused = http.get("/v1/models", headers={"authorization": f"Bearer {key}-{header}"})
        assert refused.status_code == 401
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=30)
    logs = out + err
    assert "serving" in logs  # the server did talk
    for secret in (key, prompt, header):
        assert secret not in logs


def test_sigterm_lets_a_running_a2a_stream_finish(serve_process: Any, tmp_path: Path) -> None:
    process, url = serve_process([{"content": "finished in time", "delay": 1.5}])
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "message/stream",
        "params": {
            "message": {
                "kind": "message",
                "messageId": "m1",
                "contextId": "drain",
                "role": "user",
                "parts": [{"kind": "text", "text": "hi"}],
            }
        },
    }
    lines: list[str] = []

    def read() -> None:
        with (
            httpx.Client(timeout=30) as http,
            http.stream("POST", f"{url}/a2a/helper", json=body) as response,
        ):
            lines.extend(line for line in response.iter_lines() if line.startswith("data:"))

    reader = threading.Thread(target=read)
    reader.start()
    # the task is working: the model answers after 1.5 s
    eventually(lambda: turn_running(tmp_path), what="the task to be working")
    process.send_signal(signal.SIGTERM)
    reader.join(30)
    states = [
        json.loads(line[5:]).get("result", {}).get("status", {}).get("state") for line in lines
    ]
    assert "completed" in states, lines
    assert process.wait(30) == -signal.SIGTERM
