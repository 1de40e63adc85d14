"""Real plugin distributions, built and pip-installed into a real venv, found by the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from pathlib import Path

import pytest

from agentframe_core.testing import make_venv, venv_cli, venv_pip

GOOD_PLUGIN = '''
from pydantic import BaseModel, ConfigDict

from agentframe_core import hookimpl
from agentframe_core import MemoryStore


class Options(BaseModel):
    model_config = ConfigDict(extra="forbid")
    label: str


class LabelledStore(MemoryStore):
    def __init__(self, options):
        super().__init__()
        self.label = options.label


@hookimpl
def agentframe_stores(register):
    register("labelled", LabelledStore, options=Options)


@hookimpl
def agentframe_commands(cli):
    @cli.command()
    def hello():
        """Say hello from a plugin."""
        print("hello from a plugin")
'''

GATE_PLUGIN = """
from agentframe_core import hookimpl

@hookimpl
def agentframe_gate_tool_call(ctx, name, arguments):
    return "adding is forbidden by policy" if name == "add" else None
"""

BROKEN_PLUGIN = "raise RuntimeError('this plugin is broken on purpose')\n"

RAISING_HOOK_PLUGIN = """
from agentframe_core import hookimpl

@hookimpl
def agentframe_adapters(register):
    raise ValueError("hook exploded")
"""


def make_distribution(root: Path, name: str, module_source: str) -> Path:
    package = name.replace("-", "_")
    folder = root / name
    (folder / package).mkdir(parents=True)
    (folder / package / "__init__.py").write_text("")
    (folder / package / "plugin.py").write_text(textwrap.dedent(module_source))
    (folder / "pyproject.toml").write_text(
        textwrap.dedent(f"""\
        [build-system]
        requires = ["setuptools>=61"]
        build-backend = "setuptools.build_meta"

        [project]
        name = "{name}"
        version = "1.2.3"
        dependencies = ["agentframe"]

        [project.entry-points.agentframe]
        {name.removeprefix("agentframe-")} = "{package}.plugin"
    """)
    )
    return folder


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> dict[str, str]:
    """A fresh venv with four throwaway plugins pip-installed into it."""
    root = tmp_path_factory.mktemp("plugins")
    python = make_venv(root / "venv")
    for name, source in [
        ("agentframe-labelled", GOOD_PLUGIN),
        ("agentframe-broken", BROKEN_PLUGIN),
        ("agentframe-badhook", RAISING_HOOK_PLUGIN),
        ("agentframe-gatekeeper", GATE_PLUGIN),
    ]:
        venv_pip(python, "install", "--no-deps", str(make_distribution(root, name, source)))
    env = {**os.environ, "AGENTFRAME_CACHE_DIR": str(root / "cache"), "PYTHON": str(python)}
    env.pop("AGENTFRAME_CONFIG", None)
    return env


def test_plugins_json_lists_the_installed_plugin(env):
    done = venv_cli(env, "plugins", "--json")
    assert done.returncode == 1, done.stderr  # one plugin is broken: reported, exit 1
    plugins = {p["name"]: p for p in json.loads(done.stdout)}
    good = plugins["labelled"]
    assert good["distribution"] == "agentframe-labelled" and good["version"] == "1.2.3"
    assert good["registers"] == {"store": ["labelled"]}
    assert good["commands"] == ["hello"]
    assert "agentframe_stores" in good["hooks"] and not good["errors"]
    assert plugins["agentframe"]["registers"]["store"] == ["memory"]


def test_a_broken_plugin_is_reported_and_the_cli_still_works(env, tmp_path):
    done = venv_cli(env, "plugins", "--json")
    plugins = {p["name"]: p for p in json.loads(done.stdout)}
    [error] = plugins["broken"]["errors"]
    assert error["stage"] == "import"
    assert "this plugin is broken on purpose" in error["error"]
    [hook_error] = plugins["badhook"]["errors"]
    assert hook_error == {"stage": "agentframe_adapters", "error": "ValueError: hook exploded"}

    config = tmp_path / "agentframe.yaml"
    config.write_text("adapter: {use: scripted, replies: [hi]}\nstore: {use: labelled, label: x}\n")
    checked = venv_cli(env, "config", "check", "--json", cwd=tmp_path)
    assert checked.returncode == 0, checked.stderr
    assert json.loads(checked.stdout)["parts"]["store"] == "labelled"
    ran = venv_cli(env, "run", "--json", "say hi", cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout)["reply"] == "hi"


def test_plugin_options_are_validated(env, tmp_path):
    (tmp_path / "agentframe.yaml").write_text(
        "adapter: {use: scripted}\nstore:\n  use: labelled\n  lable: x\n"
    )
    done = venv_cli(env, "config", "check", cwd=tmp_path)
    assert done.returncode == 2
    assert (
        "agentframe.yaml:4: store.lable: unknown option for 'labelled' (did you mean 'label'?)"
        in done.stderr
    )
    assert "agentframe.yaml:2: store.label: field required" in done.stderr


def test_plugin_command_runs_and_help_lists_it_without_importing_plugins(env):
    assert venv_cli(env, "plugins").returncode == 1  # writes the manifest
    done = venv_cli(env, "hello")
    assert done.returncode == 0 and done.stdout.strip() == "hello from a plugin"
    probe = (
        "import sys; from agentframe_core.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith(('agentframe_', 'stevedore'))))"
    )
    help_run = subprocess.run(
        [env["PYTHON"], "-c", probe], env=env, capture_output=True, text=True, timeout=60
    )
    assert "Plugin commands" in help_run.stdout and "hello" in help_run.stdout
    loaded = help_run.stdout.strip().splitlines()[-1]
    assert "agentframe_labelled" not in loaded and "stevedore" not in loaded, loaded


def test_a_venv_never_lists_the_plugin_commands_of_another_venv(env, tmp_path):
    """Two venvs share the user's cache folder; each has a manifest of its own."""
    assert venv_cli(env, "plugins").returncode == 1  # writes this venv's manifest
    bare = {**env, "PYTHON": str(make_venv(tmp_path / "bare"))}
    helped = venv_cli(bare, "--help")
    assert helped.returncode == 0 and "hello" not in helped.stdout, helped.stdout
    missing = venv_cli(bare, "hello")
    assert missing.returncode == 2 and "No such command 'hello'" in missing.stderr
    assert venv_cli(bare, "plugins").returncode == 0  # writes the bare venv's manifest
    assert "hello" in venv_cli(env, "--help").stdout  # the first venv's is intact


def test_the_kernel_alone_names_the_package_of_a_first_party_command(tmp_path):
    """`agentframe new` (agentframe-new) in a venv with the kernel and no plugin: not listed,
    and asking for it says what to install; a command no plugin of ours has is click's."""
    env = {**os.environ, "AGENTFRAME_CACHE_DIR": str(tmp_path / "cache")}
    env["PYTHON"] = str(make_venv(tmp_path / "venv", plugins=()))
    env.pop("AGENTFRAME_CONFIG", None)
    helped = venv_cli(env, "--help", cwd=tmp_path)
    assert helped.returncode == 0 and " new " not in helped.stdout, helped.stdout
    missing = venv_cli(env, "new", "plugin", "store", "mine", cwd=tmp_path)
    assert missing.returncode == 2, missing.stderr
    assert "no command 'new': agentframe-new adds it. To get it: pip install agentframe-new" in (
        missing.stderr
    )
    assert "Traceback" not in missing.stderr and not (tmp_path / "mine").exists()
    unknown = venv_cli(env, "nosuch", cwd=tmp_path)
    assert unknown.returncode == 2 and "No such command 'nosuch'" in unknown.stderr


def test_the_first_party_command_table_is_what_the_plugins_add():
    """Every command the table names is added by the plugin of the distribution it names
    (the repository's environment has every first-party plugin), and no other is missing."""
    from agentframe_core import PluginHost
    from agentframe_core.assembly.plugins import FIRST_PARTY_COMMANDS

    host = PluginHost()
    distributions = {info.name: info.distribution for info in host.plugins()}
    added = {
        command: distributions[plugin]
        for plugin, commands in host.commands_by_plugin().items()
        if distributions.get(plugin, "").startswith("agentframe-")
        for command in commands
    }
    assert {name: dist for name, (dist, _) in FIRST_PARTY_COMMANDS.items()} == added


def test_help_follows_installs_and_uninstalls_at_once(env, tmp_path):
    """The manifest is only trusted while the entry points it was made from are installed:
    a plugin installed since is named (its commands need a look), one removed is gone."""
    python = make_venv(tmp_path / "venv")
    own = {**env, "PYTHON": str(python), "AGENTFRAME_CACHE_DIR": str(tmp_path / "cache")}
    assert venv_cli(own, "plugins").returncode == 0  # a manifest with no plugin
    venv_pip(
        python,
        "install",
        "--no-deps",
        str(make_distribution(tmp_path, "agentframe-labelled", GOOD_PLUGIN)),
    )
    helped = venv_cli(own, "--help").stdout
    assert "(and those of labelled, installed since this list was made" in helped, helped
    assert venv_cli(own, "plugins").returncode == 0
    assert "hello" in venv_cli(own, "--help").stdout
    venv_pip(python, "uninstall", "-y", "agentframe-labelled")
    helped = venv_cli(own, "--help")
    assert helped.returncode == 0 and "hello" not in helped.stdout, helped.stdout
    assert "labelled" not in helped.stdout


def test_a_plugin_with_only_runtime_hooks_takes_part_in_every_run(env, tmp_path):
    (tmp_path / "agentframe.yaml").write_text(
        "adapter:\n  use: scripted\n  replies:\n"
        "    - tool_calls: [{name: add, arguments: {a: 1, b: 2}}]\n    - done\n"
        "store: {use: memory}\n"
        "tools: [{use: functions, import: ['agentframe_core.examples:add']}]\n"
    )
    for manifest in Path(env["AGENTFRAME_CACHE_DIR"]).glob("plugins-*.json"):
        manifest.unlink()
    for attempt in ("without a manifest", "with the manifest"):
        ran = venv_cli(env, "run", "--json", "1+2", cwd=tmp_path)
        assert ran.returncode == 0, ran.stderr
        [record] = json.loads(ran.stdout)["tool_calls"]
        assert record["result"] == "tool call refused: adding is forbidden by policy", attempt
