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


def _config(tmp_path: Path, extra: str = "") -> Path:
    (tmp_path / "agentframe.yaml").write_text(
        f"adapter: scripted\nstore: memory\nretrievers:\n"
        f"  - {{use: memory-bm25, folder: {tmp_path / 'mem'}, scope: proj{extra}}}\n"
    )
    return tmp_path / "mem" / "proj"


SECRET = "---\ntitle: Secret\ntags: []\n---\n\nnot the memory's to touch\n"


def test_a_category_linked_out_of_the_folder_is_neither_written_read_nor_deleted(
    tmp_path: Path,
) -> None:
    """issue 23 #3: with `general` linked to a folder outside the memory folder, `rm`
    deleted and `add` wrote files there."""
    scope = _config(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text(SECRET)
    scope.mkdir(parents=True)
    (scope / "general").symlink_to(outside, target_is_directory=True)

    removed = memory(tmp_path, "rm", "general/secret")
    assert removed.returncode == 1, removed.stdout
    assert "must not be links" in removed.stderr or "must be inside" in removed.stderr
    assert (outside / "secret.md").read_text() == SECRET
    shown = memory(tmp_path, "show", "general/secret")
    assert shown.returncode == 1 and "not the memory's" not in shown.stdout
    added = memory(tmp_path, "add", "Door code", "The door code is 4711.")
    assert added.returncode == 1 and "saved" not in added.stdout
    assert sorted(p.name for p in outside.iterdir()) == ["secret.md"]
    for result in (removed, shown, added):
        assert "Traceback" not in result.stderr
        assert len(result.stderr.splitlines()) == 1, result.stderr


def test_a_memory_file_linked_out_of_the_folder_is_refused(tmp_path: Path) -> None:
    scope = _config(tmp_path)
    (tmp_path / "secret.md").write_text(SECRET)
    (scope / "general").mkdir(parents=True)
    (scope / "general" / "secret.md").symlink_to(tmp_path / "secret.md")
    shown = memory(tmp_path, "show", "general/secret")
    assert shown.returncode == 1 and "not the memory's" not in shown.stdout
    removed = memory(tmp_path, "rm", "general/secret")
    assert removed.returncode == 1
    assert (tmp_path / "secret.md").read_text() == SECRET


def test_add_refuses_a_memory_over_the_size_cap(tmp_path: Path) -> None:
    """issue 23 #16: `add` said `saved`, then `show` refused the file it had written."""
    scope = _config(tmp_path, ", max_file_bytes: 1000")
    added = memory(tmp_path, "add", "Long", "word " * 400)
    assert added.returncode == 1, added.stdout
    assert "over the 1000-byte cap" in added.stderr and "saved" not in added.stdout
    assert not list(scope.rglob("*.md"))
    fits = memory(tmp_path, "add", "Short", "word " * 100)
    assert fits.returncode == 0, fits.stderr
    assert memory(tmp_path, "show", "general/short").returncode == 0


def test_memory_commands_need_no_model_and_no_store(tmp_path: Path) -> None:
    """In a venv with only this plugin, the config (or the embedded default) names an adapter
    and a store that are not installed: listing memories must not need them."""
    (tmp_path / "agentframe.yaml").write_text(
        "adapter: {use: not-installed}\nstore: {use: not-installed-either}\nretrievers:\n"
        f"  - {{use: memory-bm25, folder: {tmp_path / 'mem'}, scope: proj}}\n"
    )
    added = memory(tmp_path, "add", "Door code", "The door code is 4711.")
    assert added.returncode == 0, added.stderr
    listed = memory(tmp_path, "list")
    assert listed.returncode == 0 and "general/door-code" in listed.stdout, listed.stderr


def test_an_empty_list_says_where_it_looked_and_search_shows_first_lines(
    tmp_path: Path,
) -> None:
    """issue 28: `memory list` with no memory block printed nothing; `search` no text."""
    (tmp_path / "agentframe.yaml").write_text("adapter: scripted\nstore: memory\n")
    empty = memory(tmp_path, "list")
    assert empty.returncode == 0 and empty.stdout == ""
    config = tmp_path / "agentframe.yaml"
    assert f"{config} has no memory-bm25 block (retrievers or tools)" in empty.stderr
    assert f"no memories in {tmp_path / 'data' / 'agentframe' / 'memory' / 'user'}" in (
        empty.stderr
    )
    text = "\nThe door code is 4711.\nIt changes every month."
    assert memory(tmp_path, "add", "Door code", text).returncode == 0
    found = memory(tmp_path, "search", "door code")
    assert "general/door-code  Door code: The door code is 4711." in found.stdout
    assert "every month" not in found.stdout
