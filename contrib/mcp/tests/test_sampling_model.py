"""`sampling.adapter`: a server's sampling requests answered by a model of their own, not the
stack's, configured and validated like the top-level `adapter:` block. Run as a user would:
a config file, `agentframe run`, `agentframe config check`, against `servers/asking.py`."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import yaml

from agentframe_core.testing import run_cli

ASKING = Path(__file__).parent / "servers" / "asking.py"


def project(tmp_path: Path, sampling: dict[str, Any]) -> Path:
    config = {
        "adapter": {
            "use": "scripted",
            "replies": [
                {"tool_calls": [{"name": "mcp_ask_sample", "arguments": {"times": 1}}]},
                "done",
            ],
        },
        "tools": [
            {
                "use": "mcp",
                "project": False,
                "startup_timeout": 20,
                "servers": {"ask": {"command": sys.executable, "args": [str(ASKING)]}},
                "sampling": sampling,
            }
        ],
    }
    (tmp_path / "agentframe.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    return tmp_path


def test_the_configured_model_answers_sampling(tmp_path: Path) -> None:
    own = {"use": "scripted", "replies": ["from the sampling model"]}
    cwd = project(tmp_path, {"policy": "auto", "adapter": own})
    done = run_cli(cwd, "run", "--json", "sample once")
    assert done.returncode == 0, done.stderr
    sid = json.loads(done.stdout)["session_id"]
    entries = json.loads(run_cli(cwd, "sessions", "show", sid, "--json").stdout)
    (result,) = [e for e in entries if e["kind"] == "tool_result"]
    assert json.loads(result["content"])["last"] == "from the sampling model"
    shown = run_cli(cwd, "config", "show")
    assert "from the sampling model" in shown.stdout, shown.stderr


def test_a_wrong_sampling_model_is_a_located_config_error(tmp_path: Path) -> None:
    cwd = project(tmp_path, {"policy": "auto", "adapter": {"use": "nosuch"}})
    checked = run_cli(cwd, "config", "check")
    assert checked.returncode != 0
    assert "tools[0].sampling.adapter.use" in checked.stderr
    assert "agentframe.yaml:" in checked.stderr and "Traceback" not in checked.stderr
    wrong = project(tmp_path, {"adapter": {"use": "scripted", "replise": []}})
    checked = run_cli(wrong, "config", "check")
    assert "tools[0].sampling.adapter.replise" in checked.stderr
    assert "did you mean 'replies'" in checked.stderr
