"""Small things users hit in the first hour: an empty config, a dangling symlink among the
agent definitions."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.mark.parametrize("text", ["", "# only a comment\n", "---\n"])
def test_an_empty_config_file_is_an_error_not_the_default_stack(hostile, tmp_path, text):
    (tmp_path / "agentframe.yaml").write_text(text)
    done = hostile("config", "check")
    assert done.returncode == 2
    assert "agentframe.yaml: the config file is empty" in done.stderr


def test_a_dangling_symlink_among_agent_files_is_reported_by_path(hostile, tmp_path: Path):
    folder = tmp_path / ".agentframe" / "agents"
    folder.mkdir(parents=True)
    (folder / "gone.md").symlink_to(tmp_path / "nowhere.md")
    (folder / "good.md").write_text("---\nname: good\ndescription: test\n---\nYou help.\n")
    done = hostile("agents", "list")
    assert done.returncode == 0 and "good" in done.stdout
    assert f"{folder / 'gone.md'}: broken symbolic link" in done.stderr
    assert "nowhere.md" in done.stderr
