"""`agentframe run` with `use: anthropic`: the kernel loop calls the add tool through
`tool_use`/`tool_result` blocks and answers with its result, and `run --json` reports the
tokens the prompt cache served (the scripted server plays the model and the cache)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agentframe_adapter_anthropic.testing import Action, ScriptedServer

from agentframe_core.testing import run_cli

PROMPT = "What is 2+3? Use the add tool."


def test_run_calls_the_tool_and_reports_cached_tokens(
    server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = "sk-ant-never-printed"
    monkeypatch.setenv("SCRIPTED_ANTHROPIC_KEY", key)
    server.push(
        Action.reply("", [{"name": "add", "arguments": {"a": 2, "b": 3}}]),
        Action.reply("2 + 3 = 5."),
    )
    (tmp_path / "agentframe.yaml").write_text(
        "adapter:\n"
        "  use: anthropic\n"
        f"  base_url: {server.url}\n"
        "  model: scripted-model\n"
        "  api_key_env: SCRIPTED_ANTHROPIC_KEY\n"
        "store: memory\n"
        "tools:\n"
        "  - use: functions\n"
        '    import: ["agentframe_core.examples:add"]\n'
    )
    done = run_cli(tmp_path, "-vv", "run", "--json", PROMPT, timeout=120)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["outcome"] == "completed" and "5" in result["reply"]
    (call,) = result["tool_calls"]
    assert (call["name"], call["arguments"], call["result"]) == ("add", {"a": 2, "b": 3}, "5.0")
    first, second = (r["body"] for r in server.requests)
    assert first["tools"][0]["name"] == "add"
    tool_use = second["messages"][1]["content"][-1]
    assert (tool_use["type"], tool_use["input"]) == ("tool_use", {"a": 2, "b": 3})
    result_block = second["messages"][2]["content"][0]
    assert result_block["type"] == "tool_result" and result_block["tool_use_id"] == tool_use["id"]
    # the second request starts with everything the first one wrote to the cache
    assert result["usage"]["cached_tokens"] > 0
    assert result["usage"]["cached_tokens"] < result["usage"]["prompt_tokens"]
    assert server.requests[0]["headers"]["x-api-key"] == key
    assert key not in done.stdout + done.stderr
