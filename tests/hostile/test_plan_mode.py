"""Plan mode refuses every tool not declared read-only: an imported plain function (here
`os.system`) has an unknown effect, so it counts as writing/executing."""

from __future__ import annotations

from pathlib import Path

from agentframe_core import Tool, tool
from agentframe_core.engine.functions import import_tool


def config(tmp_path: Path) -> str:
    target = tmp_path / "pwned"
    return f"""\
adapter:
  use: scripted
  replies:
    - tool_calls: [{{name: system, arguments: {{command: "touch {target}"}}}}]
    - tool_calls: [{{name: add, arguments: {{a: 1, b: 2}}}}]
    - "planned"
store: memory
tools:
  - use: functions
    import: ["os:system", "agentframe_core.examples:add"]
"""


def test_a_tool_whose_effect_is_not_declared_counts_as_writing():
    assert Tool(name="anything").writes
    assert import_tool("os:system").spec.writes

    @tool
    def plain() -> str:
        return ""

    @tool(writes=False)
    def reader() -> str:
        return ""

    assert plain.spec.writes and not reader.spec.writes
    assert not import_tool("agentframe_core.examples:add").spec.writes


def test_the_planner_does_not_run_an_imported_os_system(hostile, tmp_path: Path):
    (tmp_path / "agentframe.yaml").write_text(config(tmp_path))
    done = hostile("run", "--agent", "planner", "plan it")
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "pwned").exists()
    assert "system" in done.stderr and "plan mode does not allow" in done.stderr
    assert "add(a=1, b=2) = 3" in done.stderr  # a read-only tool still runs


def test_run_says_where_its_config_came_from(hostile, tmp_path: Path):
    (tmp_path / "agentframe.yaml").write_text(
        "adapter: {use: scripted, replies: [hi]}\nstore: memory\n"
    )
    done = hostile("run", "hello")
    assert done.returncode == 0, done.stderr
    assert f"config: {tmp_path / 'agentframe.yaml'}" in done.stderr
    verbose = hostile("-v", "run", "hello")
    assert "INFO" in verbose.stderr and "agentframe.yaml" in verbose.stderr
