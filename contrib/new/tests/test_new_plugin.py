"""`agentframe new plugin KIND NAME`: a package of each kind, scaffolded by the CLI,
installed as a user does (`pip install -e "./NAME[test]"`, its dependencies resolved against
the kernel installed here, never an index) into one fresh venv, listed, configured, and tested
there by its own tests (its conformance kit among them)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path, PurePosixPath

import pytest
from agentframe_new.scaffold import kernel_requirement, plugin_files, write_tree

import agentframe_core
from agentframe_core import EXTENSION_POINTS, AgentframeError
from agentframe_core.testing import make_venv, venv_cli, venv_pip

#: One scaffold per extension point, named after its kind.
NAMES = {
    point.kind.value: f"scaf-{point.kind.value.replace('_', '-')}" for point in EXTENSION_POINTS
}


@pytest.fixture(scope="session")
def installed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The six scaffolds, made by `agentframe new plugin` in a venv that has no plugin but
    agentframe-new, and installed there as the README says: `pip install -e "./NAME[test]"`.
    Offline (`--no-index`): each scaffold's dependencies must be met by the kernel installed
    here, so a pin to another release series fails. Built once per session: it is slow."""
    root = tmp_path_factory.mktemp("new")
    python = make_venv(root / "venv", plugins=["agentframe-new"])
    env = {**os.environ, "AGENTFRAME_CACHE_DIR": str(root / "cache"), "PYTHON": str(python)}
    env.pop("AGENTFRAME_CONFIG", None)
    env["ROOT"] = str(root)
    for kind, name in NAMES.items():
        done = venv_cli(env, "new", "plugin", kind, name, "--dir", str(root), cwd=root)
        assert done.returncode == 0, done.stderr
        assert f"Created {root / name}/" in done.stdout, done.stdout
    venv_pip(python, "install", "setuptools>=77")  # what the scaffolds' builds require
    editable = [arg for name in NAMES.values() for arg in ("-e", f"{root / name}[test]")]
    venv_pip(python, "install", "--no-index", "--no-build-isolation", *editable)
    return env


def test_agentframe_plugins_lists_each_scaffold(installed: dict[str, str]) -> None:
    done = venv_cli(installed, "plugins", "--json", cwd=Path(installed["ROOT"]))
    assert done.returncode == 0, done.stderr
    listed = {plugin["name"]: plugin for plugin in json.loads(done.stdout)}
    assert set(listed) == {"agentframe", "new", *NAMES.values()}  # and no other plugin
    for kind, name in NAMES.items():
        plugin = listed[name]
        assert plugin["distribution"] == f"agentframe-{name}" and plugin["version"] == "0.1.0"
        assert plugin["registers"] == {kind: [name]} and not plugin["errors"]


def test_config_check_accepts_a_config_using_them(
    installed: dict[str, str], tmp_path: Path
) -> None:
    config = {
        "adapter": {"use": NAMES["adapter"], "delay": 0.01},
        "store": {"use": NAMES["store"], "max_sessions": 10},
        "context": {"use": NAMES["context"], "max_entries": 50},
        "retrievers": [{"use": NAMES["retrievers"], "documents": ["the office opens at 9"]}],
        "tools": [{"use": NAMES["tools"], "max_chars": 1000}],
    }
    (tmp_path / "agentframe.yaml").write_text(json.dumps(config), encoding="utf-8")
    done = venv_cli(installed, "config", "check", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr + done.stdout
    parts = json.loads(done.stdout)["parts"]
    assert parts["adapter"] == NAMES["adapter"] and parts["store"] == NAMES["store"]
    assert parts["context"] == NAMES["context"]
    ran = venv_cli(installed, "run", "--json", "when does the office open", cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    result = json.loads(ran.stdout)
    assert result["retrievals"][0]["sources"] == [f"{NAMES['retrievers']}:1"]
    assert result["reply"].endswith("when does the office open")  # the echo adapter


def test_each_scaffold_passes_its_own_tests(installed: dict[str, str]) -> None:
    """`python -m pytest` in each generated folder, with the venv's python, all at once."""
    root = Path(installed["ROOT"])
    env = {k: v for k, v in installed.items() if k not in ("PYTHON", "ROOT")}
    runs = {
        name: subprocess.Popen(
            [
                installed["PYTHON"],
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                f"--junitxml={root / (name + '.xml')}",
            ],
            cwd=root / name,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for name in NAMES.values()
    }
    for name, run in runs.items():
        output, _ = run.communicate(timeout=600)
        assert run.returncode == 0, f"{name}:\n{output}"
        suite = ET.parse(root / f"{name}.xml").getroot().find("testsuite")
        assert suite is not None
        cases = list(suite.iter("testcase"))
        kit = [case for case in cases if ".Test" in case.get("classname", "")]
        assert len(kit) >= 4 and len(cases) > len(kit), f"{name}: the kit and own tests ran"
        assert suite.get("failures") == suite.get("errors") == "0", f"{name}: {output}"
        for skipped in suite.iter("skipped"):  # a kit's skip says which capability is missing
            assert skipped.get("message"), f"{name}: a test skipped without a reason"


# -- refusals -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("MyStore", "lowercase letters"),
        ("my--store", "single '-' or '_'"),
        ("9lives", "starting with a letter"),
        ("a" * 41, "at most 40"),
        ("agentframe-x", "the package is agentframe_NAME already"),
        ("memory", "the plugin 'agentframe' registers a Store of that name"),
        (NAMES["retrievers"], f"the plugin '{NAMES['retrievers']}' registers a Retriever"),
        ("core", "the module agentframe_core is installed already"),
    ],
)
def test_a_bad_or_taken_name_is_refused_naming_why(
    installed: dict[str, str], tmp_path: Path, name: str, said: str
) -> None:
    done = venv_cli(installed, "new", "plugin", "tools", name, cwd=tmp_path)
    assert done.returncode == 2, done.stdout
    assert "NAME" in done.stderr and said in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and list(tmp_path.iterdir()) == []


def test_an_existing_folder_is_never_written_into(
    installed: dict[str, str], tmp_path: Path
) -> None:
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me", encoding="utf-8")
    done = venv_cli(installed, "new", "plugin", "store", "mine", cwd=tmp_path)
    assert done.returncode == 1
    assert f"{tmp_path / 'mine'} exists already: nothing was written" in done.stderr
    assert [p.name for p in (tmp_path / "mine").iterdir()] == ["notes.txt"]
    assert (tmp_path / "mine" / "notes.txt").read_text(encoding="utf-8") == "keep me"


def test_kinds_are_the_extension_points_by_any_start_of_their_name(
    installed: dict[str, str], tmp_path: Path
) -> None:
    for word, kind in [
        ("retriever", "Retriever"),
        ("agents", "AgentLoader"),
        ("TOOL", "ToolDispatcher"),
    ]:
        done = venv_cli(installed, "new", "plugin", word, f"x-{word.lower()}", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert f"the {kind} part" in done.stdout
    bad = venv_cli(installed, "new", "plugin", "widget", "x-widget", cwd=tmp_path)
    assert bad.returncode == 2
    assert "'widget' is not an extension point" in bad.stderr
    assert all(point.kind.value in bad.stderr for point in EXTENSION_POINTS)
    helped = venv_cli(installed, "new", "plugin", "--help", cwd=tmp_path)
    listed = " ".join(helped.stdout.split())  # as wrapped to any width
    assert all(f"{p.kind.value} ({p.protocol_name})" in listed for p in EXTENSION_POINTS)


# -- what is written ------------------------------------------------------------------------


def test_a_failed_write_keeps_nothing(tmp_path: Path) -> None:
    target = tmp_path / "half"
    clash = {PurePosixPath("a"): "a file", PurePosixPath("a/b"): "under a file"}
    with pytest.raises(AgentframeError, match=r"cannot write .*nothing was kept"):
        write_tree(target, clash)
    assert not target.exists()


def test_the_templates_see_only_the_values_given_and_are_not_escaped() -> None:
    """(That the code imports only the kernel's public surface is checked with the in-repo
    plugins', by the kernel's `tests/test_public_surface.py`.)"""
    pinned = f"agentframe{kernel_requirement(agentframe_core.__version__)}"
    for point in EXTENSION_POINTS:
        files = plugin_files(point, "probe")
        assert {"pyproject.toml", "MANIFEST.in", "README.md"} <= {str(p) for p in files}
        assert PurePosixPath("agentframe_probe/plugin.py") in files
        for path, text in files.items():
            assert "{{" not in text and "{%" not in text and "&#" not in text, path
        pyproject = files[PurePosixPath("pyproject.toml")]
        assert 'probe = "agentframe_probe.plugin"' in pyproject
        assert f'dependencies = ["{pinned}"]' in pyproject  # the installed kernel's series
        assert 'license = "MIT"' in pyproject and 'asyncio_mode = "auto"' in pyproject
        assert "graft tests" in files[PurePosixPath("MANIFEST.in")]


def test_the_scaffolds_are_lint_clean_and_formatted(tmp_path: Path) -> None:
    """Checked as the kernel is (its rules), with the generated pyproject's own settings."""
    pytest.importorskip("ruff")
    rules = "E,F,W,I,UP,B,SIM,RUF"
    for point in EXTENSION_POINTS:
        folder = tmp_path / NAMES[point.kind.value]
        write_tree(folder, plugin_files(point, folder.name))
        for check in (["check", "--select", rules], ["format", "--check", "--diff"]):
            done = subprocess.run(
                [sys.executable, "-m", "ruff", *check, "."],
                cwd=folder,
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert done.returncode == 0, f"{folder.name}: {done.stdout}{done.stderr}"


def test_a_kind_without_a_template_folder_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a new extension point meets until its template folder is written."""
    monkeypatch.setattr("agentframe_new.scaffold._templates", lambda: tmp_path)
    point = EXTENSION_POINTS[0]
    with pytest.raises(AgentframeError, match=f"no plugin template for the kind '{point.kind}'"):
        plugin_files(point, "probe")


@pytest.mark.parametrize(
    ("version", "bound"),
    [
        ("0.2.0", ">=0.2,<0.3"),
        ("0.10.3", ">=0.10,<0.11"),
        ("1.4.2", ">=1.4,<2"),
        ("1.0rc1", ">=1.0,<2"),
    ],
)
def test_the_kernel_requirement_is_the_release_series(version: str, bound: str) -> None:
    assert kernel_requirement(version) == bound


def test_a_kernel_version_without_a_minor_number_is_named() -> None:
    with pytest.raises(AgentframeError, match=r"the kernel's version 'dev' is not MAJOR\.MINOR"):
        kernel_requirement("dev")
