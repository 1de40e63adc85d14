"""The memory bank: files on disk, reopening, near-duplicates, hostile files, the index."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from agentframe_memory.bank import INDEX_FILE, MemoryBank, UnknownMemoryError
from agentframe_memory.files import read_memory


def test_a_memory_is_a_markdown_file_with_title_and_tags(bank: MemoryBank) -> None:
    path = bank.folder / "preferences" / "favourite-editor.md"
    text = path.read_text()
    assert text.startswith("---\ntitle: Favourite editor\ntags:\n- editor\n")
    assert text.rstrip().endswith("The user edits code in Neovim with the LazyVim setup.")
    assert not [p for p in path.parent.iterdir() if p.name.startswith(".")]  # no temp left


def test_found_after_reopening_in_a_new_bank(bank: MemoryBank) -> None:
    bank.close()
    again = MemoryBank(bank.folder)
    try:
        (best, _), *_ = again.search("what coffee does the user drink", 3)
        assert best == "personal/coffee-order"
    finally:
        again.close()


def test_a_second_open_bank_sees_writes_without_rebuilding(bank: MemoryBank) -> None:
    other = MemoryBank(bank.folder)
    try:
        assert other.search("kubernetes cluster", 3) == []
        bank.remember("Cluster", "Staging runs on a Kubernetes cluster called kestrel.", "project")
        assert other.search("kubernetes cluster", 3)[0][0] == "project/cluster"
        bank.forget("project/cluster")
        assert other.search("kubernetes cluster", 3) == []
    finally:
        other.close()


def test_a_near_duplicate_updates_instead_of_adding(bank: MemoryBank) -> None:
    before = len(bank)
    memory, new = bank.remember(
        "Favourite editor", "The user now edits code in Helix.", "preferences", ("tools",)
    )
    assert not new and memory.id == "preferences/favourite-editor"
    assert memory.tags == ("editor", "tools")
    memory, new = bank.remember(
        "Editor of choice", "The user now edits code in Helix.", "preferences", ()
    )
    assert not new and len(bank) == before
    assert (
        read_memory(bank.path_of(memory.id), 10_000).content == "The user now edits code in Helix."
    )
    _, new = bank.remember("Editor of choice", "Unrelated text entirely.", "other", ())
    assert new  # another category is never a duplicate


def test_an_update_keeps_keys_added_by_hand(bank: MemoryBank) -> None:
    path = bank.folder / "personal" / "coffee-order.md"
    path.write_text(path.read_text().replace("title:", "source: a chat\ntitle:", 1))
    memory, new = bank.remember("Coffee order", "Now a cortado.", "personal")
    assert not new and "source: a chat" in path.read_text() and memory.content == "Now a cortado."


def test_hand_edited_and_hand_deleted_files_are_picked_up_on_open(bank: MemoryBank) -> None:
    bank.close()
    path = bank.folder / "personal" / "coffee-order.md"
    path.write_text("---\ntitle: Tea order\n---\nThe user switched to green tea.\n")
    os.unlink(bank.folder / "project" / "release-day.md")
    again = MemoryBank(bank.folder)
    try:
        assert again.search("green tea", 3)[0][0] == "personal/coffee-order"
        assert again.search("releases thursday", 3) == []
    finally:
        again.close()


def test_hostile_files_are_skipped_and_reported(bank: MemoryBank) -> None:
    folder = bank.folder / "junk"
    folder.mkdir()
    (folder / "huge.md").write_text("---\ntitle: huge\n---\n" + "word " * 100_000)
    (folder / "binary.md").write_bytes(b"---\ntitle: bin\n---\n\x00\xff\xfe")
    (folder / "latin1.md").write_bytes("---\ntitle: caf\xe9\n---\n".encode("latin-1"))
    (folder / "badyaml.md").write_text("---\ntitle: [unclosed\n---\nbody\n")
    (folder / "notitle.md").write_text("---\ntags: [a]\n---\nbody\n")
    (folder / "nofront.md").write_text("just text\n")
    os.mkfifo(folder / "fifo.md")
    (folder / "good.md").write_text("---\ntitle: Good one\n---\nThe zebra password is striped.\n")
    stats = bank.reindex()
    problems = {Path(p).name: why for p, why in bank.problems.items()}
    assert set(problems) == {
        "huge.md",
        "binary.md",
        "latin1.md",
        "badyaml.md",
        "notitle.md",
        "nofront.md",
        "fifo.md",
    }
    assert "cap" in problems["huge.md"] and "NUL" in problems["binary.md"]
    assert "line 2" in problems["badyaml.md"] or ":2:" in problems["badyaml.md"]
    assert stats["skipped"] == 7
    assert bank.search("zebra password", 3)[0][0] == "junk/good"
    assert len(bank.all()) == 6  # the five facts and the good file


def test_ids_cannot_escape_the_folder(bank: MemoryBank) -> None:
    for bad in ["../etc/passwd", "project/../../x", "/abs/path", "project/", "a/b/c"]:
        with pytest.raises(UnknownMemoryError):
            bank.forget(bad)


def test_the_index_is_not_rebuilt_per_query(bank: MemoryBank, monkeypatch) -> None:
    from agentframe_memory import bank as module

    def fail(*args, **kwargs):
        raise AssertionError("the index was rebuilt")

    monkeypatch.setattr(module.InvertedIndex, "__init__", fail)
    for _ in range(3):
        assert bank.search("deploys ansible", 2)[0][0] == "project/deploy-target"
    bank.remember("New fact", "Backups run nightly at 02:00 with restic.", "project")
    assert bank.search("nightly backups", 2)[0][0] == "project/new-fact"
    assert (bank.folder / INDEX_FILE).exists()
