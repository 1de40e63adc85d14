"""`store: {use: postgres}` through the real `agentframe` CLI: a turn, list, export, import,
and a server that cannot be reached, said without the password."""

from __future__ import annotations

import json
import re
from pathlib import Path

import psycopg
import pytest

from agentframe_core.testing import run_cli


@pytest.fixture
def env(tmp_path: Path, postgres_dsn: str) -> dict[str, str]:
    """Added to `run_cli`'s: a home of the test's own, and the server's DSN."""
    return {"HOME": str(tmp_path / "home"), "AGENTFRAME_TEST_PG": postgres_dsn}


def config(tmp_path: Path, name: str, store: str) -> Path:
    file = tmp_path / f"{name}.yaml"
    file.write_text(f"adapter: {{use: scripted, replies: [Lyon it is.]}}\nstore: {store}\n")
    return file


def test_a_turn_then_export_and_import_between_schemas(
    tmp_path: Path, env: dict[str, str], schema: str, postgres_dsn: str
) -> None:
    source = config(
        tmp_path, "a", f"{{use: postgres, dsn_env: AGENTFRAME_TEST_PG, schema: {schema}}}"
    )
    target = config(
        tmp_path, "b", f"{{use: postgres, dsn_env: AGENTFRAME_TEST_PG, schema: {schema}_b}}"
    )
    try:
        ran = run_cli(
            tmp_path,
            "--config",
            str(source),
            "run",
            "--session",
            "trip",
            "Plan the trip to Lyon",
            env=env,
        )
        assert ran.returncode == 0, ran.stderr
        listed = json.loads(
            run_cli(tmp_path, "--config", str(source), "sessions", "list", "--json", env=env).stdout
        )
        assert [(s["id"], s["title"]) for s in listed] == [("trip", "Plan the trip to Lyon")]
        exported = run_cli(tmp_path, "--config", str(source), "sessions", "export", env=env)
        assert exported.returncode == 0, exported.stderr
        assert len(exported.stdout.splitlines()) >= 2  # the message and its reply
        imported = run_cli(
            tmp_path,
            "--config",
            str(target),
            "sessions",
            "import",
            "-",
            input=exported.stdout,
            env=env,
        )
        assert imported.returncode == 0, imported.stderr
        again = run_cli(tmp_path, "--config", str(target), "sessions", "export", env=env)
        assert again.stdout == exported.stdout
    finally:
        with psycopg.connect(postgres_dsn, autocommit=True) as db:
            db.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE".encode())
            db.execute(f"DROP SCHEMA IF EXISTS {schema}_b CASCADE".encode())


def test_an_unreachable_server_is_an_error_without_the_password(
    tmp_path: Path, env: dict[str, str]
) -> None:
    dsn = "postgresql://agentframe:topsecret-42@127.0.0.1:1/postgres"
    cfg = config(tmp_path, "down", f'{{use: postgres, dsn: "{dsn}", connect_timeout: 2}}')
    done = run_cli(tmp_path, "--config", str(cfg), "sessions", "list", env=env)
    assert done.returncode == 1
    assert "cannot connect" in done.stderr and "***" in done.stderr
    assert "topsecret-42" not in done.stderr + done.stdout
    assert "Traceback" not in done.stderr


def test_doctor_fails_an_unreachable_store_without_the_password(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """issue 23 #16: doctor said "everything looks fine" with an unreachable store."""
    dsn = "postgresql://agentframe:topsecret-42@127.0.0.1:1/postgres"
    cfg = config(tmp_path, "down", f'{{use: postgres, dsn: "{dsn}", connect_timeout: 2}}')
    done = run_cli(tmp_path, "--config", str(cfg), "doctor", "--quick", env=env)
    assert done.returncode == 1, done.stdout
    line = next(x for x in done.stdout.splitlines() if "store postgres" in x)
    assert line.startswith("FAIL") and "cannot connect" in line and "127.0.0.1" in line
    assert "everything looks fine" not in done.stdout
    assert "topsecret-42" not in done.stdout + done.stderr
    assert "Traceback" not in done.stderr


def test_doctor_says_a_reachable_store_answers(
    tmp_path: Path, env: dict[str, str], schema: str
) -> None:
    store = f"{{use: postgres, dsn_env: AGENTFRAME_TEST_PG, schema: {schema}}}"
    cfg = config(tmp_path, "up", store)
    done = run_cli(tmp_path, "--config", str(cfg), "doctor", "--quick", "--json", env=env)
    checks = {c["name"]: c for c in json.loads(done.stdout)["checks"]}
    assert checks["store postgres"]["ok"], checks["store postgres"]
    assert "PostgreSQL" in checks["store postgres"]["detail"]


@pytest.mark.parametrize("password", ["p@ssW0rdZ", "s3cr3t Z9x"])
def test_config_show_and_an_unreachable_server_mask_a_password_with_at_or_space(
    tmp_path: Path, password: str
) -> None:
    dsn = f"postgresql://agentframe:{password}@127.0.0.1:1/postgres"
    cfg = config(tmp_path, "odd", f'{{use: postgres, dsn: "{dsn}", connect_timeout: 2}}')
    shown = run_cli(tmp_path, "--config", str(cfg), "config", "show")
    assert shown.returncode == 0, shown.stderr
    assert "postgresql://***@127.0.0.1:1/postgres" in shown.stdout
    failed = run_cli(tmp_path, "--config", str(cfg), "sessions", "list")
    assert failed.returncode == 1 and "cannot connect" in failed.stderr
    for output in (shown.stdout + shown.stderr, failed.stdout + failed.stderr):
        for part in (password, *(p for p in re.split("[@ ]", password) if len(p) >= 3)):
            assert part not in output, output
