"""Bytes that are not UTF-8, in a config, an import, an argument or a chat line: a named
error (or a skipped line), never a UnicodeDecodeError/UnicodeEncodeError traceback."""

from __future__ import annotations

from pathlib import Path

STACK = """\
adapter: {use: scripted, replies: [first reply, second reply]}
store: {use: sqlite, path: s.db}
"""


def test_a_config_with_a_bad_byte_names_file_line_and_byte(hostile, tmp_path: Path):
    (tmp_path / "agentframe.yaml").write_bytes(b"store: memory\nadapter: \xff\n")
    done = hostile("config", "check")
    assert done.returncode == 2
    assert "agentframe.yaml: cannot read config file: not UTF-8 text: byte 0xff" in done.stderr
    assert "(line 2)" in done.stderr


def test_importing_a_non_utf8_export_is_a_named_error(hostile, tmp_path: Path):
    (tmp_path / "agentframe.yaml").write_text(STACK)
    (tmp_path / "export.jsonl").write_bytes(b'{"session_id": "\xfe"}\n')
    done = hostile("sessions", "import", "export.jsonl")
    assert done.returncode == 1
    assert "export.jsonl: cannot read session export: not UTF-8 text: byte 0xfe" in done.stderr


def test_a_non_utf8_prompt_argument_is_refused_by_name(hostile, tmp_path: Path):
    (tmp_path / "agentframe.yaml").write_text(STACK)
    done = hostile("run", b"\xff\xfe")
    assert done.returncode == 2
    assert "not valid UTF-8 text: byte 0xff" in done.stderr
    for args in (["run", "-s", b"s\xff", "hi"], ["sessions", "show", b"\xff"]):
        refused = hostile(*args)
        assert refused.returncode == 2 and "not valid UTF-8 text" in refused.stderr


def test_a_non_utf8_line_piped_to_chat_is_skipped_and_the_chat_goes_on(hostile, tmp_path: Path):
    (tmp_path / "agentframe.yaml").write_text(STACK)
    piped = tmp_path / "lines.txt"
    piped.write_bytes(b"caf\xe9 ol\xe9\nhello\n")
    with open(piped, "rb") as stdin:
        done = hostile("chat", stdin=stdin)
    assert done.returncode == 0, done.stderr
    assert "not valid UTF-8 text: byte 0xe9" in done.stderr
    assert "first reply" in done.stdout
