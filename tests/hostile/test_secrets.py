"""Secrets are masked wherever they are printed: header values, URL credentials, values of
secret-named keys, in `config show`, error messages and log lines."""

from __future__ import annotations

import json
import logging

from agentframe_core import RedactingFormatter, redact_data, redact_text, redact_url

SECRETS = [f"S3CRET{i}" for i in range(10)]

CONFIG = f"""\
adapter:
  use: openai
  base_url: "http://alice:{SECRETS[0]}@127.0.0.1:9/v1?token={SECRETS[1]}&mode=x"
  headers:
    Authorization: "Bearer {SECRETS[2]}"
    X-Api-Key: {SECRETS[3]}
    X-Custom: {SECRETS[4]}
  api_key: {SECRETS[5]}
  extra_body: {{note: "see https://bob:{SECRETS[6]}@example.com/x"}}
  max_tokens: 100
store: memory
tools:
  - use: mcp
    servers:
      github:
        command: npx
        args: [-y, some-server, --token, {SECRETS[7]}, "--api-key={SECRETS[8]}", --port, "8"]
      web:
        url: "https://mcp.example/v1?key={SECRETS[9]}&region=eu"
"""


def test_urls_lose_their_credentials_and_secret_query_values():
    url = "https://u:p4ss@host:8/v1/x?token=t0k&model=m&api_key=k3y#f"
    assert redact_url(url) == "https://***@host:8/v1/x?token=***&model=m&api_key=***#f"
    assert redact_url("http://host/v1?limit=3") == "http://host/v1?limit=3"


def test_free_text_loses_tokens_and_secret_named_values():
    text = 'Authorization: Bearer sk-abc X-Api-Key=k3y "password": "hunter2" max_tokens: 100'
    shown = redact_text(text)
    for secret in ("sk-abc", "k3y", "hunter2"):
        assert secret not in shown
    assert "max_tokens: 100" in shown and "Authorization" in shown


def test_command_arguments_lose_the_values_of_secret_flags():
    args = ["-y", "server", "--token", "t0k", "--api-key=k3y", "--port", "8", "--verbose"]
    assert redact_data({"args": args}) == {
        "args": ["-y", "server", "--token", "***", "--api-key=***", "--port", "8", "--verbose"]
    }
    shown = redact_text("npx server --token t0k --api-key=k3y --password 'p w' --port 8")
    assert "t0k" not in shown and "k3y" not in shown and "p w" not in shown
    assert shown.endswith("--port 8")
    assert redact_url("https://h/x?key=g00g&q=1") == "https://h/x?key=***&q=1"


#: Tokens of well-known shapes (made up, of the real lengths).
BARE_TOKENS = [
    "sk-proj-" + "Ab3_" * 12,
    "sk-ant-api03-" + "x9" * 40,
    "ghp_" + "a1B2" * 9,
    "github_pat_" + "11AB_" * 16,
    "glpat-" + "q" * 20,
    "AKIA" + "IOSFODNN7EXAMPLE",
    "xoxb-1234567890-0987654321-" + "abc" * 8,
    "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    "AIza" + "SyD-" * 8 + "abc",
    "hf_" + "Z" * 34,
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
]


def test_bare_tokens_of_well_known_shapes_are_masked():
    for token in BARE_TOKENS:
        shown = redact_text(f'the key is {token}, "{token}" and ({token}).')
        assert token not in shown and shown.count("***") == 3, (token, shown)
    pem = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----"
    assert redact_text(f"key:\n{pem}\nend") == "key:\n***\nend"
    ordinary = "task-key sk-short AKIA ghp_x eyJ.eyJ.x max_tokens: 100 the skeleton-key"
    ordinary += " sk-learn-pipeline-tutorial-for-beginners"
    assert redact_text(ordinary) == ordinary


def test_config_data_masks_every_header_value_and_secret_keys():
    data = {
        "adapter": {
            "headers": {"X-Anything": "v", "Authorization": "Bearer x"},
            "api_key": "k",
            "api_key_env": "OPENAI_API_KEY",
            "base_url": "http://u:p@h/v1",
            "max_tokens": 5,
        }
    }
    assert redact_data(data) == {
        "adapter": {
            "headers": {"X-Anything": "***", "Authorization": "***"},
            "api_key": "***",
            "api_key_env": "OPENAI_API_KEY",
            "base_url": "http://***@h/v1",
            "max_tokens": 5,
        }
    }


def test_log_lines_and_their_tracebacks_are_masked():
    formatter = RedactingFormatter("%(message)s")
    try:
        raise ValueError("failed: http://u:pw1@h/?token=tk2")
    except ValueError:
        import sys

        record = logging.LogRecord("x", logging.INFO, "f", 1, "to %s", ("http://u:pw3@h",), None)
        record.exc_info = sys.exc_info()
    shown = formatter.format(record)
    assert "pw1" not in shown and "tk2" not in shown and "pw3" not in shown
    assert "ValueError" in shown


def test_config_show_prints_no_secret(hostile, tmp_path):
    (tmp_path / "agentframe.yaml").write_text(CONFIG)
    for args in (["config", "show"], ["config", "show", "--json"]):
        done = hostile(*args)
        assert done.returncode == 0, done.stderr
        for secret in SECRETS:
            assert secret not in done.stdout + done.stderr, (secret, done.stdout)
        assert "X-Custom" in done.stdout and "max_tokens: 100" in done.stdout.replace('"', "")
    data = json.loads(hostile("config", "show", "--json").stdout)
    assert data["config"]["adapter"]["headers"]["X-Custom"] == "***"
