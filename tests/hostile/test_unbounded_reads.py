"""Files named by the user are read only when they are regular files under a size cap named
in the error: never `/dev/zero`, a FIFO, a directory or a sparse file of gigabytes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentframe_core.support.files import CONFIG_FILE_LIMIT, FileReadError, read_text_file

CONFIG = "adapter: {use: scripted, replies: [hi]}\nstore: memory\n"


def sparse(path: Path, size: int) -> Path:
    with open(path, "wb") as handle:
        handle.truncate(size)
    return path


def fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def test_the_helper_refuses_what_is_not_a_small_regular_file(tmp_path: Path):
    cases = {
        "/dev/zero": "not a regular file (a character device)",
        str(fifo(tmp_path / "pipe")): "not a regular file (a FIFO)",
        str(tmp_path): "not a regular file (a directory)",
        str(sparse(tmp_path / "big", 4096)): "too large (4096 bytes; the limit is 100 bytes)",
        str(tmp_path / "missing"): "No such file or directory",
    }
    for path, reason in cases.items():
        with pytest.raises(FileReadError) as caught:
            read_text_file(path, 100, "test file")
        assert str(caught.value) == f"{path}: cannot read test file: {reason}"


def test_the_helper_reads_text_and_names_a_bad_byte(tmp_path: Path):
    good = tmp_path / "good"
    good.write_text("héllo\n")
    assert read_text_file(good, 100) == "héllo\n"
    bad = tmp_path / "bad"
    bad.write_bytes(b"ok\nstore: \xff\n")
    with pytest.raises(FileReadError, match=r"byte 0xff at offset 10 \(line 2\)"):
        read_text_file(bad, 100)


@pytest.mark.parametrize("kind", ["/dev/zero", "fifo", "directory", "sparse"])
def test_a_config_that_is_not_a_small_regular_file_is_a_named_error(hostile, tmp_path, kind):
    target = {
        "/dev/zero": lambda: Path("/dev/zero"),
        "fifo": lambda: fifo(tmp_path / "pipe.yaml"),
        "directory": lambda: tmp_path,
        "sparse": lambda: sparse(tmp_path / "big.yaml", 3 << 30),
    }[kind]()
    done = hostile("-c", str(target), "config", "check")
    assert done.returncode == 2
    assert f"{target}: cannot read config file: " in done.stderr
    if kind == "sparse":
        assert f"the limit is {CONFIG_FILE_LIMIT} bytes" in done.stderr


def test_agents_check_of_dev_zero_is_a_named_error(hostile):
    done = hostile("agents", "check", "/dev/zero")
    assert done.returncode == 1
    assert "/dev/zero: cannot read: not a regular file (a character device)" in done.stdout


def test_a_huge_agent_file_is_skipped_by_name(hostile, tmp_path: Path):
    folder = tmp_path / ".agentframe" / "agents"
    folder.mkdir(parents=True)
    sparse(folder / "huge.md", 3 << 30)
    done = hostile("agents", "list")
    assert done.returncode == 0 and "planner" in done.stdout
    assert "huge.md: cannot read: too large" in done.stderr


def test_a_huge_agents_md_is_skipped_with_a_warning(hostile, tmp_path: Path):
    sparse(tmp_path / "AGENTS.md", 3 << 30)
    (tmp_path / "agentframe.yaml").write_text(CONFIG)
    done = hostile("agents", "show", "planner")
    assert done.returncode == 0, done.stderr
    assert "AGENTS.md: cannot read project instructions: too large" in done.stderr


@pytest.mark.parametrize("kind", ["/dev/zero", "fifo", "sparse", "stdin"])
def test_sessions_import_reads_only_a_bounded_regular_file(hostile, tmp_path, kind):
    (tmp_path / "agentframe.yaml").write_text(CONFIG)
    if kind == "stdin":
        with open("/dev/zero", "rb") as zeros:
            done = hostile("sessions", "import", "-", stdin=zeros)
        assert done.returncode == 1 and "<stdin>: cannot read session export: too large" in (
            done.stderr
        )
        return
    target = {
        "/dev/zero": lambda: Path("/dev/zero"),
        "fifo": lambda: fifo(tmp_path / "pipe.jsonl"),
        "sparse": lambda: sparse(tmp_path / "big.jsonl", 3 << 30),
    }[kind]()
    done = hostile("sessions", "import", str(target))
    assert done.returncode == 1
    assert f"{target}: cannot read session export: " in done.stderr


def test_a_huge_skill_file_is_a_named_error(tmp_path: Path):
    from agentframe_core import AgentDefinition
    from agentframe_core.contract.errors import AgentParseError
    from agentframe_core.engine.prompt import resolve_skills

    skills = tmp_path / ".agentframe" / "skills"
    skills.mkdir(parents=True)
    sparse(skills / "huge.md", 3 << 30)
    agent = AgentDefinition.model_validate({"name": "a", "description": "d", "skills": ["huge"]})
    with pytest.raises(AgentParseError, match=r"huge\.md: cannot read: too large"):
        resolve_skills(agent, tmp_path)
