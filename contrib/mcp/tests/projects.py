"""A project folder as a user has one: a `.mcp.json` with the given servers and an
`agentframe.yaml` on the scripted model with `use: mcp`, for the tests that run the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml


def scripted_project(tmp_path: Path, servers: dict[str, Any]) -> Path:
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
    config = {
        "adapter": {"use": "scripted", "replies": ["done"]},
        "tools": [{"use": "mcp", "startup_timeout": 20}],
    }
    (tmp_path / "agentframe.yaml").write_text(yaml.safe_dump(config))
    return tmp_path
