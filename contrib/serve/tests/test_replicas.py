"""Two `agentframe serve` processes on one PostgreSQL store serve one session by turns (the
store's turn lease): requests on one session sent to both at once are all answered, and
the session's history stays one conversation, each answer after the message it answers."""

from __future__ import annotations

import itertools
import json
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import psycopg
import pytest
from agentframe_store_postgres.testing import postgres_dsn

from agentframe_core.testing import run_cli

__all__ = ["postgres_dsn"]


@pytest.fixture
def schema(postgres_dsn: str) -> Iterator[str]:
    name = f"t_{uuid.uuid4().hex[:16]}"
    yield name
    with psycopg.connect(postgres_dsn, autocommit=True) as db:
        db.execute(f"DROP SCHEMA IF EXISTS {name} CASCADE".encode())


def test_two_replicas_serve_one_session_by_turns(
    serve_process: Any, postgres_dsn: str, schema: str, tmp_path: Any, monkeypatch: Any
) -> None:
    store = {"use": "postgres", "dsn_env": "AGENTFRAME_TEST_PG", "schema": schema}
    replies = [{"content": "noted", "delay": 0.6}] * 8
    _, url_a = serve_process(replies, store=store, AGENTFRAME_TEST_PG=postgres_dsn)
    _, url_b = serve_process(replies, store=store, AGENTFRAME_TEST_PG=postgres_dsn)
    answers: dict[str, str] = {}

    def ask(url: str, text: str) -> None:
        body = {
            "model": "helper",
            "messages": [{"role": "user", "content": text}],
            "session_id": "shared",
        }
        response = httpx.post(f"{url}/v1/chat/completions", json=body, timeout=60)
        data = response.json()
        answers[text] = data["choices"][0]["message"]["content"] if "choices" in data else str(data)

    threads = []
    for i, url in enumerate([url_a, url_b, url_a, url_b]):
        threads.append(threading.Thread(target=ask, args=(url, f"message {i}")))
        threads[-1].start()
        time.sleep(0.2)  # each arrives while an earlier one is being answered
    for thread in threads:
        thread.join(60)
    assert answers == {f"message {i}": "noted" for i in range(4)}
    monkeypatch.setenv("AGENTFRAME_TEST_PG", postgres_dsn)
    shown = run_cli(tmp_path, "sessions", "show", "local.shared", "--json")
    assert shown.returncode == 0, shown.stderr
    kinds = [e["kind"] for e in json.loads(shown.stdout)]
    assert kinds.count("user") == 4 and kinds[-1] == "assistant"
    # never an answer to nothing: each assistant entry follows a user message
    assert all(b != "assistant" or a == "user" for a, b in itertools.pairwise(kinds))
