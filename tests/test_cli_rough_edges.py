"""The rough edges of a first hour with the CLI (issue 28) and failures that explain
themselves (issue 25): each met as a user meets it, through real `agentframe` processes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agentframe_core.testing.cli import cli_env, run_cli

ADD = """\
adapter:
  use: scripted
  cycle: true
  replies:
    - tool_calls: [{name: add, arguments: {a: 2, b: 3}}]
    - "The sum is 5."
store: {use: sqlite, path: sessions.db}
tools:
  - use: functions
    import: ["agentframe_core.examples:add"]
profiles:
  short: {limits: {max_turns: 1}}
"""


#: One cache folder (the plugin manifest) for every process of this module: a fresh one costs
#: each test a scan of the installed plugins.
_CACHE: list[Path] = []


@pytest.fixture(scope="module", autouse=True)
def shared_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    _CACHE[:] = [tmp_path_factory.mktemp("cache")]


def linked(cwd: Path) -> Path:
    """`cwd`, its cache folder (`run_cli`'s `cwd/cache`) linked to the module's."""
    if not (cwd / "cache").exists():
        (cwd / "cache").symlink_to(_CACHE[0], target_is_directory=True)
    return cwd


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "agentframe.yaml").write_text(ADD)
    return tmp_path


def test_root_options_work_after_the_subcommand_too(project: Path) -> None:
    elsewhere = project / "elsewhere"
    elsewhere.mkdir()
    config = str(project / "agentframe.yaml")
    ran = run_cli(linked(elsewhere), "run", "2+3?", "-c", config, "-v")
    assert ran.returncode == 0, ran.stderr
    assert "INFO agentframe.chat: config:" in ran.stderr  # -v after the subcommand
    shown = run_cli(linked(project), "config", "show", "--json", "-p", "short")
    assert json.loads(shown.stdout)["config"]["limits"] == {"max_turns": 1}
    listed = run_cli(linked(elsewhere), "sessions", "list", "--json", "--config", config)
    assert len(json.loads(listed.stdout)) == 1, listed.stderr
    # a plugin's command gets them too, and after the subcommand they win over the root's
    plugin = run_cli(linked(elsewhere), "-c", "missing.yaml", "skills", "list", "-c", config)
    assert plugin.returncode == 0, plugin.stderr


def test_sessions_by_prefix_and_last_without_empty_headers(project: Path) -> None:
    for session in ("aaa111", "aab222"):
        done = run_cli(linked(project), "run", "--new", "-s", session, f"2+3 for {session}?")
        assert done.returncode == 0, done.stderr
    ambiguous = run_cli(linked(project), "sessions", "show", "aa")
    assert ambiguous.returncode == 1
    assert "'aa' is the start of 2 sessions: aab222, aaa111" in ambiguous.stderr
    shown = run_cli(linked(project), "sessions", "show", "aaa")
    assert shown.returncode == 0 and "2+3 for aaa111?" in shown.stdout
    lines = shown.stdout.splitlines()
    headers = [line.split("] ", 1)[1] for line in lines if line.startswith("[")]
    assert headers == ["user", "tool_call add", "tool_result add", "assistant"], shown.stdout
    assert lines[lines.index(next(x for x in lines if x.endswith("] assistant"))) + 1] == (
        "The sum is 5."
    )
    last = run_cli(linked(project), "sessions", "show", "--last")
    assert "2+3 for aab222?" in last.stdout and "session aab222" in last.stderr
    again = run_cli(linked(project), "run", "--last", "once more")
    assert again.returncode == 0 and "session: aab222" in again.stderr
    chat = run_cli(linked(project), "chat", "--last", input="/exit\n")
    assert chat.returncode == 0 and "session aab222" in chat.stdout, chat.stderr
    out = project / "export.jsonl"
    exported = run_cli(linked(project), "sessions", "export", "-o", str(out))
    assert exported.returncode == 0, exported.stderr
    entries = len(out.read_text().splitlines())
    size = out.stat().st_size
    assert f"wrote {entries} entries of 2 session(s), {size} bytes, to {out}" in exported.stderr


def test_import_finds_a_module_beside_the_config(tmp_path: Path) -> None:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "helper.py").write_text("FACTOR = 2\n")
    (folder / "mytools.py").write_text(
        "import importlib\n"
        "from helper import FACTOR\n\n"
        "def double(x: int) -> int:\n"
        '    """Double x."""\n'
        "    return x * FACTOR\n\n"
        "def probe() -> str:\n"
        '    """Is the config folder still on sys.path?"""\n'
        "    try:\n"
        "        importlib.import_module('unrelated')\n"
        "    except ImportError:\n"
        "        return 'not on the path'\n"
        "    return 'still on the path'\n"
    )
    (folder / "unrelated.py").write_text("")
    (folder / "agentframe.yaml").write_text(
        "adapter:\n  use: scripted\n  replies:\n"
        "    - tool_calls: [{name: double, arguments: {x: 21}}, {name: probe}]\n"
        "    - done\n"
        "store: memory\n"
        "tools:\n"
        "  - use: functions\n    import: ['mytools:probe']\n"
        "  - use: functions\n    import: ['mytools:double']\n    isolate: true\n"
    )
    cwd = tmp_path / "elsewhere"
    cwd.mkdir()
    done = run_cli(linked(cwd), "-c", str(folder / "agentframe.yaml"), "run", "--json", "go")
    assert done.returncode == 0, done.stderr
    results = {c["name"]: c["result"] for c in json.loads(done.stdout)["tool_calls"]}
    assert results == {"double": "42", "probe": "not on the path"}
    (folder / "json.py").write_text("def dumps(x): return 'mine'\n")
    (folder / "agentframe.yaml").write_text(
        "adapter: scripted\nstore: memory\ntools:\n  - use: functions\n    import: ['json:dumps']\n"
    )
    shadow = run_cli(linked(cwd), "-c", str(folder / "agentframe.yaml"), "config", "check")
    assert shadow.returncode == 2
    assert f"{folder / 'json.py'} has the name of the module 'json'" in shadow.stderr


def test_the_sync_facade_inside_an_event_loop_names_the_async_way(project: Path) -> None:
    script = (
        "import asyncio, agentframe_core\n"
        "async def main():\n"
        "    try:\n"
        "        agentframe_core.run('2+3?')\n"
        "    except agentframe_core.EventLoopRunningError as err:\n"
        "        print(err)\n"
        "asyncio.run(main())\n"
    )
    done = subprocess.run(
        [sys.executable, "-W", "always", "-c", script],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
        env=cli_env(linked(project)),
    )
    assert done.returncode == 0, done.stderr
    assert "await Session(stack).run(prompt)" in done.stdout
    assert "never awaited" not in done.stderr and "Traceback" not in done.stderr


CUT = """\
adapter:
  use: scripted
  cycle: true
  native_tools: false
  max_tokens: 6
  replies: [REPLY]
store: memory
tools:
  - use: functions
    import: ["agentframe_core.examples:add"]
"""


def test_a_reply_cut_at_the_token_limit_says_so(tmp_path: Path) -> None:
    config = tmp_path / "agentframe.yaml"
    config.write_text(CUT.replace("REPLY", '\'{"tool": "add", "args": {"a": 2, "b": 3}}\''))
    done = run_cli(linked(tmp_path), "run", "2+3?")
    assert done.returncode == 1
    assert done.stdout.strip() == ""  # the broken JSON is not the answer
    assert (
        "the reply was cut at the model's token limit after 6 tokens (the limit is 6 tokens: "
        f"raise `adapter.max_tokens` in {config})" in done.stderr
    )
    assert "stopped: truncated after 3 model call(s)" in done.stderr
    report = json.loads(run_cli(linked(tmp_path), "run", "--json", "2+3?").stdout)
    assert report["outcome"] == "truncated" and report["reply"] == ""
    assert report["truncated"] == {"tokens": 6, "limit": 6, "setting": "adapter.max_tokens"}
    # a plain answer cut short is still shown, and said to be cut
    config.write_text(CUT.replace("REPLY", "The sum of two and three is five."))
    answered = run_cli(linked(tmp_path), "run", "--json", "2+3?")
    report = json.loads(answered.stdout)
    assert report["outcome"] == "completed" and report["reply"] == "The sum of two and three"
    assert report["truncated"]["tokens"] == 6


def test_a_budget_that_cannot_be_met_is_a_warning(tmp_path: Path) -> None:
    (tmp_path / "agentframe.yaml").write_text(
        "adapter: {use: scripted, replies: [fine]}\nstore: memory\n"
        "context: {use: shaper, budget_tokens: 60}\n"
        "tools:\n  - use: functions\n    import: ['agentframe_core.examples:add']\n"
    )
    checked = run_cli(linked(tmp_path), "config", "check", "--json")
    assert checked.returncode == 0, checked.stderr
    (warning,) = json.loads(checked.stdout)["warnings"]
    assert warning["budget_tokens"] == 60 and warning["prompt_tokens"] > 60
    assert "over the budget of the context builder 'shaper' (60 tokens)" in warning["message"]
    ran = run_cli(linked(tmp_path), "run", "--json", "hi")
    over = json.loads(ran.stdout)["over_budget"]
    assert over["budget_tokens"] == 60 and over["prompt_tokens"] > 60
    assert f"the prompt took {over['prompt_tokens']} tokens, over the budget" in ran.stderr
    (tmp_path / "agentframe.yaml").write_text(
        "adapter: {use: scripted, replies: [fine]}\nstore: memory\n"
        "context: {use: shaper, budget_tokens: 4000}\n"
    )
    roomy = run_cli(linked(tmp_path), "run", "--json", "hi")
    assert json.loads(roomy.stdout)["over_budget"] is None
