"""The kernel's shared helpers: atomic writes, pid liveness, argument decoding."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from agentframe_core import atomic_write, decode_arguments, pid_alive


def test_atomic_write_replaces_whole_and_leaves_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "state.json"
    atomic_write(target, "old")
    atomic_write(target, b"new \xe2\x98\x83", durable=True)
    assert target.read_bytes() == b"new \xe2\x98\x83"
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]


def test_a_failed_atomic_write_keeps_the_old_content(tmp_path: Path) -> None:
    target = tmp_path / "state.json"
    atomic_write(target, "old")
    with pytest.raises(TypeError):
        atomic_write(target, 42)  # type: ignore[arg-type]
    with pytest.raises(IsADirectoryError):
        atomic_write(tmp_path, "a folder cannot be replaced")
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state.json"]


def test_concurrent_atomic_writers_never_show_a_mix(tmp_path: Path) -> None:
    target = tmp_path / "state"
    payloads = [bytes([65 + n]) * 200_000 for n in range(4)]
    atomic_write(target, payloads[0])
    seen: set[bytes] = set()
    stop = threading.Event()

    def read() -> None:
        while not stop.is_set():
            seen.add(target.read_bytes())

    reader = threading.Thread(target=read)
    reader.start()
    writers = [
        threading.Thread(target=lambda p=p: [atomic_write(target, p) for _ in range(20)])
        for p in payloads
    ]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join()
    stop.set()
    reader.join()
    assert seen <= set(payloads)
    assert [p.name for p in tmp_path.iterdir()] == ["state"]


def test_pid_alive() -> None:
    import os

    assert pid_alive(os.getpid())
    assert not pid_alive(0) and not pid_alive(-1) and not pid_alive(2**62)
    done = subprocess.Popen([sys.executable, "-c", "pass"])
    done.wait()
    assert not pid_alive(done.pid)
    zombie = subprocess.Popen([sys.executable, "-c", "pass"])
    try:
        for _ in range(200):  # exited but not reaped: a zombie is not alive
            if not pid_alive(zombie.pid):
                break
            threading.Event().wait(0.01)
        assert not pid_alive(zombie.pid)
    finally:
        zombie.wait()


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ({"a": 1}, {"a": 1}),
        ('{"a": [1, 2]}', {"a": [1, 2]}),
        (None, {}),
        ("", {}),
        ("  \n", {}),
    ],
)
def test_decode_arguments(raw: object, expected: dict[str, object]) -> None:
    assert decode_arguments(raw) == expected


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ('{"a": 1', "not valid JSON"),
        ("[1, 2]", "not list"),
        ("3", "not int"),
        (7, "not int"),
        (["x"], "not list"),
    ],
)
def test_decode_arguments_refuses_what_is_not_an_object(raw: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        decode_arguments(raw)
