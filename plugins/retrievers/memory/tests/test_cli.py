"""`agentframe memory ...` through the real CLI, on the configured folder and scope."""

from __future__ import annotations

import json
from pathlib import Path

from agentframe_core.testing import run_cli


def memory(tmp_path: Path, *args: str):
    return run_cli(tmp_path, "memory", *args, timeout=120)


def test_add_list_show_search_rm_reindex(tmp_path: Path) -> None:
    (tmp_path / "agentframe.yaml").write_text(
        f"adapter: scripted\nstore: memory\nretrievers:\n"
        f"  - {{use: memory-bm25, folder: {tmp_path / 'mem'}, scope: proj}}\n"
    )
    added = memory(
        tmp_path, "add", "Door code", "The door code is 4711.", "--tag", "office", "--json"
    )
    assert added.returncode == 0, added.stderr
    assert json.loads(added.stdout)["id"] == "general/door-code"
    assert (tmp_path / "mem" / "proj" / "general" / "door-code.md").is_file()

    (tmp_path / "mem" / "proj" / "general" / "broken.md").write_bytes(b"\x00\x01")
    listed = memory(tmp_path, "list", "--json")
    data = json.loads(listed.stdout)
    assert [m["id"] for m in data["memories"]] == ["general/door-code"]
    assert any("broken.md" in p for p in data["problems"])
    plain = memory(tmp_path, "list")
    assert "general/door-code  Door code  [office]" in plain.stdout
    assert "skipped" in plain.stderr and "Traceback" not in plain.stderr

    shown = memory(tmp_path, "show", "general/door-code", "--json")
    assert json.loads(shown.stdout)["content"] == "The door code is 4711."
    found = memory(tmp_path, "search", "what is the door code", "--json")
    assert json.loads(found.stdout)[0]["id"] == "general/door-code"
    stats = json.loads(memory(tmp_path, "reindex", "--json").stdout)
    assert stats["skipped"] == 1 and stats["indexed"] == 1

    gone = memory(tmp_path, "rm", "general/door-code")
    assert gone.returncode == 0 and "removed general/door-code" in gone.stdout
    missing = memory(tmp_path, "show", "general/door-code")
    assert missing.returncode != 0 and "no memory" in missing.stderr
    assert "Traceback" not in missing.stderr
    bad = memory(tmp_path, "list", "--scope", "../etc")
    assert bad.returncode != 0 and "Traceback" not in bad.stderr
