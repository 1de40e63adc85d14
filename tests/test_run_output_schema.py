"""`agentframe run --output-schema FILE.json`: the answer is held to the schema, its errors
sent back to the model, and the validated JSON printed; a schema that cannot be used is an
error naming the file, before any model call."""

from __future__ import annotations

import json
from pathlib import Path

from agentframe_core.testing import run_cli

SCHEMA = {"type": "object", "properties": {"total": {"type": "integer"}}, "required": ["total"]}


def workdir(tmp_path: Path, *replies: str) -> Path:
    lines = "".join(f"    - {json.dumps(reply)}\n" for reply in replies)
    (tmp_path / "agentframe.yaml").write_text(
        f"adapter:\n  use: scripted\n  replies:\n{lines}store: memory\n"
    )
    (tmp_path / "sum.json").write_text(json.dumps(SCHEMA))
    return tmp_path


def test_the_validated_json_is_printed(tmp_path: Path) -> None:
    done = run_cli(workdir(tmp_path, "five", '{"total": 5}'), "run", "--output-schema",
                   "sum.json", "2+3?")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"total": 5}


def test_json_carries_the_output_and_the_errors_of_a_run_that_never_matched(
    tmp_path: Path,
) -> None:
    folder = workdir(tmp_path, "no", "still no", '{"total": "x"}')
    done = run_cli(folder, "run", "--json", "--output-schema", "sum.json", "2+3?")
    assert done.returncode == 1
    result = json.loads(done.stdout)
    assert result["outcome"] == "invalid_output"
    assert "output" not in result
    assert any("total" in error for error in result["output_errors"])


def test_a_schema_that_is_not_json_schema_names_the_file(tmp_path: Path) -> None:
    folder = workdir(tmp_path, "unused")
    (folder / "sum.json").write_text('{"type": 5}')
    done = run_cli(folder, "run", "--output-schema", "sum.json", "2+3?")
    assert done.returncode == 2
    assert "sum.json" in done.stderr and "not a usable JSON Schema" in done.stderr
    assert "Traceback" not in done.stderr
