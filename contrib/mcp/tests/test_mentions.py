"""`@server:uri` in a prompt, run as a user would: the resource of `servers/asking.py`
(`note://hello`) reaches the model beside the prompt; what cannot be read is named."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from agentframe_mcp.mentions import MAX_MENTIONS, Mention, find_mentions
from projects import scripted_project  # a helper beside the tests

from agentframe_core.testing import run_cli

ASKING = Path(__file__).parent / "servers" / "asking.py"


def project(tmp_path: Path) -> Path:
    return scripted_project(tmp_path, {"ask": {"command": sys.executable, "args": [str(ASKING)]}})


def session_text(cwd: Path, prompt: str) -> str:
    done = run_cli(cwd, "run", "--json", prompt)
    assert done.returncode == 0, done.stderr
    sid = json.loads(done.stdout)["session_id"]
    shown = run_cli(cwd, "sessions", "show", sid, "--json")
    return json.dumps(json.loads(shown.stdout))


def test_a_mentioned_resource_is_read_into_the_run(tmp_path: Path) -> None:
    cwd = project(tmp_path)
    text = session_text(cwd, "Summarise @ask:note://hello.")
    assert "[@ask:note://hello]" in text and "hello from a resource" in text
    shown = run_cli(cwd, "run", "Summarise @ask:note://hello.")
    assert "↳ read @ask:note://hello (" in shown.stderr, shown.stderr


def test_what_cannot_be_read_is_named_and_the_rest_left_alone(tmp_path: Path) -> None:
    cwd = project(tmp_path)
    text = session_text(cwd, "Read @ask:note://missing and mail ada@example.org @other:x://y")
    assert "@ask:note://missing: not read:" in text
    assert "Resources the prompt mentions" in text and "@other:x://y:" not in text


def test_mentions_are_found_only_with_a_scheme_and_once() -> None:
    prompt = "see @a:file://x.md, @a:file://x.md and bob@b:file://no (@c:note://1) @d:plain"
    assert find_mentions(prompt) == [Mention("a", "file://x.md"), Mention("c", "note://1")]
    many = " ".join(f"@s:n://{i}" for i in range(MAX_MENTIONS + 3))
    assert len(find_mentions(many)) == MAX_MENTIONS + 3
