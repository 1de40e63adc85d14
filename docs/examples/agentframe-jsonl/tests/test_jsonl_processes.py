"""Several real processes on one folder: the kernel's multi-process kit (eight `agentframe run`
on one session; churning writers killed with SIGKILL), then the logs themselves."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from agentframe_core.testing import StoreProcessConformance

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="fcntl.flock and SIGKILL")


class TestJsonlProcesses(StoreProcessConformance):
    #: A compaction here is one line and an fsync: killed up to 4 ms after it starts, it has
    #: nearly always finished.
    kill_delay = 0.0005

    @pytest.fixture
    def store_config(self, tmp_path: Path) -> dict[str, Any]:
        return {"use": "jsonl", "dir": str(tmp_path / "sessions")}

    def check_after_kills(self, store_config: Mapping[str, Any], acknowledged: set[str]) -> None:
        """Every line of every log is whole JSON, but perhaps the last (a killed writer's),
        and every acknowledged id is in a log."""
        stored: set[str] = set()
        for log in Path(store_config["dir"]).glob("*.jsonl"):
            lines = log.read_bytes().split(b"\n")
            for number, line in enumerate(lines[:-1], 1):
                try:
                    record = json.loads(line)
                except ValueError as err:
                    pytest.fail(f"{log}:{number}: a broken line: {err}")
                assert record["session"] == log.stem, f"{log}:{number}"
                stored.add((record.get("entry") or record.get("marker") or {}).get("id", ""))
        assert acknowledged <= stored, f"{len(acknowledged - stored)} acknowledged ids missing"
