"""Keys, per-key sessions, caps, CORS and the Host check: each refused the way the brief
says, and nothing of a key or a prompt in the logs."""

from __future__ import annotations

import asyncio
import hashlib
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from servekit import write_project

from agentframe_core.testing import run_cli

ALICE, BOB = "alice-key-0123456789abcdef", "bob-key-0123456789abcdef"
KEYS = {"AGENTFRAME_SERVE_API_KEYS": f"alice={ALICE},bob={BOB}"}
HELLO = [{"role": "user", "content": "hello"}]


async def test_without_a_valid_key_nothing_is_served(serve: Any) -> None:
    served = await serve(["unused"], environ=KEYS)
    for key in ["wrong-key-0123456789abcdef", ALICE + "x", ALICE[:-1]]:
        with pytest.raises(openai.AuthenticationError):
            await served.client(key).models.list()
    async with httpx.AsyncClient() as http:
        assert (await http.get(f"{served.url}/v1/sessions")).status_code == 401
        refused = await http.get(f"{served.url}/v1/models", headers={"x-api-key": "nope"})
        assert refused.status_code == 401
        assert refused.json()["error"]["type"] == "authentication_error"
        assert (await http.get(f"{served.url}/healthz")).status_code == 200
    assert len((await served.client(ALICE).models.list()).data) == 4
    assert served.requests == []


async def test_another_keys_session_is_refused_exactly_like_an_unknown_one(serve: Any) -> None:
    served = await serve(["Hi Alice.", "Hi Bob."], environ=KEYS)
    raw = await served.client(ALICE).chat.completions.with_raw_response.create(
        model="helper", messages=HELLO
    )
    alices = raw.headers["x-session-id"]
    headers = {"authorization": f"Bearer {BOB}"}
    async with httpx.AsyncClient(base_url=served.url, headers=headers) as bob:
        theirs = await bob.get(f"/v1/sessions/{alices}")
        unknown = await bob.get("/v1/sessions/never-used")
        assert theirs.status_code == unknown.status_code == 404
        assert theirs.json() == {
            "error": {**unknown.json()["error"], "message": f"no session {alices!r}"}
        }
        assert (await bob.delete(f"/v1/sessions/{alices}")).status_code == 404
        assert (await bob.get("/v1/sessions")).json()["data"] == []
        # naming Alice's session continues a session of Bob's own, never hers
        answer = await bob.post(
            "/v1/chat/completions",
            json={"model": "helper", "messages": HELLO, "session_id": alices},
        )
        assert answer.json()["choices"][0]["message"]["content"] == "Hi Bob."
    assert await served.entries(f"alice.{alices}") == [
        ("user", "hello"),
        ("assistant", "Hi Alice."),
    ]
    assert await served.entries(f"bob.{alices}") == [("user", "hello"), ("assistant", "Hi Bob.")]
    async with httpx.AsyncClient(
        base_url=served.url, headers={"authorization": f"Bearer {ALICE}"}
    ) as alice:
        listed = (await alice.get("/v1/sessions")).json()["data"]
        assert [row["id"] for row in listed] == [alices]
        shown = (await alice.get(f"/v1/sessions/{alices}")).json()
        assert [e["content"] for e in shown["entries"]] == ["hello", "Hi Alice."]
        assert (await alice.delete(f"/v1/sessions/{alices}")).json()["deleted"] is True
        assert (await alice.get(f"/v1/sessions/{alices}")).status_code == 404


async def test_a_hashed_key_in_the_config_is_accepted(serve: Any) -> None:
    key = "ci-key-0123456789abcdef"
    digest = hashlib.sha256(key.encode()).hexdigest()
    served = await serve(["ok"], serve={"api_keys": [{"name": "ci", "sha256": digest}]})
    answer = await served.client(key).chat.completions.create(model="helper", messages=HELLO)
    assert await served.entries(f"ci.{answer.model_extra['session_id']}") == [
        ("user", "hello"),
        ("assistant", "ok"),
    ]
    with pytest.raises(openai.AuthenticationError):
        await served.client(digest).models.list()


def test_binding_beyond_loopback_needs_keys(tmp_path: Path) -> None:
    write_project(tmp_path, ["unused"])
    done = run_cli(tmp_path, "serve", "--host", "0.0.0.0", "--port", "8123", timeout=60)
    assert done.returncode == 2
    assert "needs API keys" in done.stderr and "AGENTFRAME_SERVE_API_KEYS" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_malformed_key_variable_is_named_never_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_project(tmp_path, ["unused"])
    monkeypatch.setenv("AGENTFRAME_SERVE_API_KEYS", "bad name=s3cret-s3cret-s3cret")
    done = run_cli(tmp_path, "serve", "--port", "8123", timeout=60)
    assert done.returncode == 2
    assert "$AGENTFRAME_SERVE_API_KEYS: item 1" in done.stderr
    assert "s3cret" not in done.stderr + done.stdout


async def test_bodies_and_message_counts_are_capped(serve: Any) -> None:
    served = await serve(["unused"], serve={"max_body_bytes": 5000, "max_messages": 3})
    async with httpx.AsyncClient(base_url=served.url) as http:
        big = {"model": "helper", "messages": [{"role": "user", "content": "x" * 6000}]}
        response = await http.post("/v1/chat/completions", json=big)
        assert response.status_code == 413 and "5000 bytes" in response.json()["error"]["message"]

        async def parts() -> Any:  # no Content-Length: the cap counts what arrives
            for _ in range(6):
                yield b"x" * 1000

        chunked = await http.post(
            "/v1/chat/completions",
            content=parts(),
            headers={"content-type": "application/json"},
        )
        assert chunked.status_code == 413
        many = {"model": "helper", "messages": [{"role": "user", "content": "x"}] * 4}
        response = await http.post("/v1/chat/completions", json=many)
        assert response.status_code == 400 and response.json()["error"]["param"] == "messages"
        deep = b"[" * 2400 + b"]" * 2400
        response = await http.post("/v1/chat/completions", content=deep)
        assert response.status_code == 400
    assert served.requests == []


async def test_each_key_runs_a_bounded_number_of_requests_at_once(serve: Any) -> None:
    served = await serve(
        [{"content": "slow", "delay": 1.0}, "fast"],
        serve={"max_concurrent_per_key": 1},
        environ=KEYS,
    )
    first = asyncio.create_task(
        served.client(ALICE).chat.completions.create(model="helper", messages=HELLO)
    )
    while not served.requests:
        await asyncio.sleep(0.01)
    with pytest.raises(openai.RateLimitError) as caught:
        await served.client(ALICE).chat.completions.create(model="helper", messages=HELLO)
    assert "max_concurrent_per_key" in caught.value.body["message"]
    other = await served.client(BOB).chat.completions.create(model="helper", messages=HELLO)
    assert other.choices[0].message.content == "fast"
    assert (await first).choices[0].message.content == "slow"


async def test_cors_is_off_unless_configured(serve: Any) -> None:
    served = await serve(["unused"])
    async with httpx.AsyncClient(base_url=served.url) as http:
        response = await http.get("/v1/models", headers={"origin": "http://evil.example"})
        assert response.status_code == 403
        assert "access-control-allow-origin" not in response.headers


async def test_configured_origins_are_served_with_cors_headers(serve: Any) -> None:
    ui = "http://ui.example"
    served = await serve(["unused"], serve={"cors_origins": [ui]})
    async with httpx.AsyncClient(base_url=served.url) as http:
        preflight = await http.options(
            "/v1/chat/completions",
            headers={
                "origin": ui,
                "access-control-request-method": "POST",
                "access-control-request-headers": "authorization,content-type",
            },
        )
        assert preflight.status_code == 200
        assert preflight.headers["access-control-allow-origin"] == ui
        listed = await http.get("/v1/models", headers={"origin": ui})
        assert listed.status_code == 200 and listed.headers["access-control-allow-origin"] == ui
        other = await http.get("/v1/models", headers={"origin": "http://evil.example"})
        assert other.status_code == 403


async def test_a_loopback_server_refuses_a_foreign_host_header(serve: Any) -> None:
    served = await serve(["unused"])
    async with httpx.AsyncClient(base_url=served.url) as http:
        assert (await http.get("/v1/models", headers={"host": "evil.example"})).status_code == 403
        assert (await http.get("/v1/models", headers={"host": "localhost:80"})).status_code == 200
        assert (await http.get("/v1/models", headers={"host": "[::1]:8000"})).status_code == 200


async def test_with_keys_a_proxy_may_pass_its_own_host(serve: Any) -> None:
    served = await serve(["unused"], environ=KEYS)
    proxied = {"host": "agents.example.com", "authorization": f"Bearer {ALICE}"}
    async with httpx.AsyncClient(base_url=served.url) as http:
        assert (await http.get("/v1/models", headers=proxied)).status_code == 200
        anonymous = await http.get("/v1/models", headers={"host": "agents.example.com"})
        assert anonymous.status_code == 401
