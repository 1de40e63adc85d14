"""`agentframe mcp list|call` and `agentframe doctor`, run as a user would."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from agentframe_core.testing import run_cli

SECRET = "s3cret-value-do-not-print"


def project(tmp_path: Path, servers: dict[str, Any]) -> Path:
    """A project folder whose .mcp.json holds `servers`, with a stack that uses them."""
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
    config = {
        "adapter": {"use": "scripted", "replies": ["ok"]},
        "store": {"use": "memory"},
        "tools": [{"use": "mcp", "startup_timeout": 20}],
    }
    (tmp_path / "agentframe.yaml").write_text(yaml.safe_dump(config))
    return tmp_path


def time_entry() -> dict[str, Any]:
    return {
        "command": sys.executable,
        "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"],
        "env": {"API_TOKEN": "${MCP_CLI_SECRET}"},
    }


def test_list_shows_servers_and_tools_and_masks_secrets(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("MCP_CLI_SECRET", SECRET)
    cwd = project(tmp_path, {"time": time_entry()})
    done = run_cli(cwd, "mcp", "list", "--json")
    assert done.returncode == 0, done.stderr
    assert SECRET not in done.stdout + done.stderr
    (row,) = json.loads(done.stdout)["servers"]
    assert row["state"] == "ready" and row["env"] == {"API_TOKEN": "***"}
    assert [t["name"] for t in row["tools"]] == [
        "mcp_time_get_current_time",
        "mcp_time_convert_time",
    ]
    text = run_cli(cwd, "mcp", "list")
    assert text.returncode == 0 and "mcp_time_convert_time — Convert time" in text.stdout


def test_call_prints_the_result_and_rejects_bad_arguments(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("MCP_CLI_SECRET", SECRET)
    cwd = project(tmp_path, {"time": time_entry()})
    done = run_cli(cwd, "mcp", "call", "time", "get_current_time", '{"timezone": "Asia/Tokyo"}')
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["timezone"] == "Asia/Tokyo"
    bad = run_cli(cwd, "mcp", "call", "time", "get_current_time", "[1, 2]")
    assert bad.returncode == 2 and "must be a JSON object" in bad.stderr
    assert "Traceback" not in bad.stderr
    unknown = run_cli(cwd, "mcp", "call", "nope", "x")
    assert unknown.returncode == 2 and "no MCP server 'nope'; configured: time" in unknown.stderr
    failing = run_cli(cwd, "mcp", "call", "time", "get_current_time", '{"timezone": "Mars/Base"}')
    assert failing.returncode == 1 and "Mars/Base" in failing.stdout


def test_doctor_and_list_report_a_server_that_fails_to_start(
    tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.setenv("MCP_CLI_SECRET", SECRET)
    missing = tmp_path / "no-such-server"
    cwd = project(tmp_path, {"gone": {"command": str(missing)}, "time": time_entry()})
    config = yaml.safe_load((cwd / "agentframe.yaml").read_text())
    config["tools"][0]["allow_tools"] = ["mcp_time_get_current_time"]  # what doctor counts
    (cwd / "agentframe.yaml").write_text(yaml.safe_dump(config))
    doctor = run_cli(cwd, "doctor")
    assert doctor.returncode == 1
    assert "FAIL mcp server gone: MCP server 'gone' could not be started" in doctor.stdout
    assert (
        "ok   mcp server time: 1 tool(s) offered to the model, of 2 (allow_tools/deny_tools)"
        in doctor.stdout
    )
    listed = run_cli(cwd, "mcp", "list")
    assert listed.returncode == 1 and "FAIL gone" in listed.stdout
    for output in (doctor.stdout + doctor.stderr, listed.stdout + listed.stderr):
        assert "Traceback" not in output and SECRET not in output


def test_list_needs_no_model_and_no_store(tmp_path: Path) -> None:
    """`mcp list` reads the tool dispatchers only: an adapter and a store that are not
    installed (a venv with only this plugin) do not stop it."""
    (tmp_path / "agentframe.yaml").write_text(
        "adapter: {use: not-installed}\nstore: {use: not-installed-either}\n"
        "tools: [{use: mcp, servers: {}}]\n"
    )
    listed = run_cli(tmp_path, "mcp", "list", "--json", timeout=60)
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout)["servers"] == []


def test_a_header_with_a_line_break_is_a_config_error_naming_it_not_its_value(
    tmp_path: Path,
) -> None:
    header = {"X-Api-Key": f"{SECRET}\nInjected: yes"}
    cwd = project(
        tmp_path, {"docs": {"type": "http", "url": "http://127.0.0.1:1/mcp", "headers": header}}
    )
    for args in (("mcp", "list"), ("mcp", "list", "--json"), ("doctor",)):
        done = run_cli(cwd, *args)
        output = done.stdout + done.stderr
        assert done.returncode != 0, output
        assert "server 'docs'" in output and "header 'X-Api-Key'" in output, output
        assert "line break" in output and SECRET not in output and "Traceback" not in output


def test_an_expanded_header_with_a_line_break_fails_its_server_naming_it(
    tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.setenv("MCP_CLI_SECRET", f"{SECRET}\n")
    server = {
        "type": "http",
        "url": "http://127.0.0.1:1/mcp",
        "headers": {"Authorization": "Bearer ${MCP_CLI_SECRET}"},
    }
    cwd = project(tmp_path, {"docs": server, "time": time_entry()})
    for args in (("mcp", "list"), ("mcp", "list", "--json"), ("doctor",), ("-v", "mcp", "list")):
        done = run_cli(cwd, *args)
        output = done.stdout + done.stderr
        assert done.returncode == 1, output
        assert "mcpServers.docs.headers: header 'Authorization' has a line break" in output
        assert SECRET not in output and "Traceback" not in output, output


def test_list_masks_credentials_in_urls_and_arguments(tmp_path: Path) -> None:
    url = f"http://agent:{SECRET}@127.0.0.1:1/mcp?token={SECRET}"
    stdio = {
        "command": sys.executable,
        "args": ["-c", "pass", f"--db=postgresql://u:p@{SECRET}@h/db"],
    }
    cwd = project(tmp_path, {"docs": {"type": "http", "url": url}, "local": stdio})
    text, data = run_cli(cwd, "mcp", "list"), run_cli(cwd, "mcp", "list", "--json")
    for done in (text, data):
        assert done.returncode == 1
        assert SECRET not in done.stdout + done.stderr, done.stdout + done.stderr
    rows = {r["server"]: r for r in json.loads(data.stdout)["servers"]}
    assert rows["docs"]["url"] == "http://***@127.0.0.1:1/mcp?token=***"
    assert rows["local"]["args"][-1] == "--db=postgresql://***@h/db"
    assert "http://***@127.0.0.1:1/mcp?token=***" in text.stdout


def marker_server(marker: Path) -> dict[str, Any]:
    """A server whose start leaves `marker` behind: proof that its command ran."""
    return {"command": sys.executable, "args": ["-c", f"open({str(marker)!r}, 'w')"]}


def test_a_mcp_json_above_the_repository_root_is_not_read(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"up": marker_server(marker)}}))
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "sub").mkdir()
    for cwd in (repo / "sub", repo):
        done = run_cli(cwd, "mcp", "list", "--json")
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["servers"] == []
    assert not marker.exists()


@pytest.mark.parametrize("hostile", ["group-writable", "another user's"])
def test_a_mcp_json_of_another_user_or_writable_by_others_is_refused(
    tmp_path: Path, hostile: str
) -> None:
    marker = tmp_path / "ran"
    cwd = project(tmp_path, {"m": marker_server(marker)})
    file = cwd / ".mcp.json"
    if hostile == "group-writable":
        file.chmod(0o664)
        expected = f"{file}: writable by group or others (mode 664)"
    else:
        if os.geteuid() != 0:
            pytest.skip("only root can give a file to another user")
        os.chown(file, 65534, 65534)
        expected = f"{file}: owned by another user (uid 65534, not 0)"
    for args in (("mcp", "list"), ("doctor",), ("run", "hi")):
        done = run_cli(cwd, *args)
        assert done.returncode != 0, done.stdout
        assert expected in done.stdout + done.stderr, done.stdout + done.stderr
        assert "Traceback" not in done.stderr
    assert not marker.exists()
