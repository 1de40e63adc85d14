"""The kernel's trust check (`assembly/trust.py`) on its own: what the trust file must be to
count, how `require_trust` answers without a terminal and while inspecting, links resolved,
and which config is the working folder's own. The flow through real hooks, commands and MCP
servers, on a real pty too, is tested by agentframe-compat and agentframe-mcp."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agentframe_core import UntrustedFolderError, config_in_project, require_trust
from agentframe_core.assembly import trust
from agentframe_core.testing import run_cli


@pytest.fixture(autouse=True)
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv(trust.TRUST_ALL_ENV, raising=False)
    monkeypatch.setattr(trust, "_inspecting", False)
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


def test_without_a_terminal_an_untrusted_folder_is_refused_in_one_line(data: Path) -> None:
    assert require_trust(data, []) is True  # nothing would run: nothing to trust
    with pytest.raises(UntrustedFolderError) as refused:
        require_trust(data, ["hook `a`", "hook `b`", "hook `c`"])
    message = str(refused.value)
    assert "\n" not in message and f"agentframe trust {data}" in message
    assert "and 1 more" in message and trust.TRUST_ALL_ENV in message


def test_inspecting_leaves_untrusted_code_out_without_asking(data: Path) -> None:
    trust.inspect_only()
    assert require_trust(data, ["hook `a`"]) is False
    assert not trust.trust_file().exists()


def test_a_link_is_trusted_as_its_target_and_children_with_it(data: Path, tmp_path: Path) -> None:
    link = tmp_path / "link"
    link.symlink_to(data)
    assert trust.trust_folder(link) == data.resolve()
    assert json.loads(trust.trust_file().read_text())["folders"] == [str(data.resolve())]
    (data / "sub").mkdir()
    assert require_trust(data / "sub", ["hook `a`"]) is True
    assert not trust.is_trusted(tmp_path)  # a parent is not trusted by its child
    assert trust.revoke_folder(link) and not trust.is_trusted(data)


@pytest.mark.parametrize("spoil", ["group-writable", "not-json", "no-list"])
def test_a_trust_file_that_is_spoiled_trusts_nothing(data: Path, spoil: str) -> None:
    trust.trust_folder(data)
    path = trust.trust_file()
    if spoil == "group-writable":
        os.chmod(path, 0o620)
    elif spoil == "not-json":
        path.write_text("{oops")
    else:
        path.write_text(json.dumps({"folders": str(data)}))
    assert not trust.is_trusted(data)


def test_the_environment_variable_trusts_all(data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(trust.TRUST_ALL_ENV, "1")
    assert require_trust(data, ["hook `a`"]) is True
    assert not trust.trust_file().exists()


def test_only_the_working_folders_own_config_pulls_in_its_project(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "src").mkdir()
    assert config_in_project(None, repo / "src")
    assert config_in_project(repo / "agentframe.yaml", repo / "src")  # a parent in the repo
    assert not config_in_project(tmp_path / "mine.yaml", repo / "src")  # above the repo


def test_the_cli_lists_trusts_and_revokes(tmp_path: Path) -> None:
    folder = tmp_path / "work"
    folder.mkdir()
    assert "no folder is trusted" in run_cli(tmp_path, "trust", "--list").stdout
    assert run_cli(tmp_path, "trust", str(folder)).returncode == 0
    listed = json.loads(run_cli(tmp_path, "trust", "--list", "--json").stdout)
    assert listed["folders"] == [str(folder.resolve())] and listed["trust_all"] is False
    assert "revoked" in run_cli(tmp_path, "trust", "--revoke", str(folder)).stdout
    assert "was not trusted" in run_cli(tmp_path, "trust", "--revoke", str(folder)).stdout
    missing = run_cli(tmp_path, "trust", str(tmp_path / "nowhere"))
    assert missing.returncode != 0 and "Traceback" not in missing.stderr
