"""Part blocks: relative paths in options, one block read alone, a default that is missing."""

from __future__ import annotations

import os
import types
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

from agentframe_core import (
    ConfigError,
    Kind,
    PluginHost,
    Register,
    hookimpl,
    load_config,
    load_part,
)


class Inner(BaseModel):
    model_config = ConfigDict(extra="forbid")
    file: Path


class PathOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    dir: Path = Path("relative-default")
    maybe: Path | None = None
    many: list[Path] = []
    named: dict[str, Inner] = {}
    label: str = "not/a/path"


def _host() -> PluginHost:
    def agentframe_stores(register: Register) -> None:
        register("files", lambda options: options, options=PathOptions)

    plugin: Any = types.ModuleType("paths_plugin")
    plugin.agentframe_stores = hookimpl(agentframe_stores)
    host = PluginHost()
    host.add("paths", plugin)
    return host


def test_relative_paths_in_options_resolve_against_the_config_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "project"
    folder.mkdir()
    config_file = folder / "agentframe.yaml"
    config_file.write_text(
        "adapter: scripted\ncontext: verbatim\n"
        "store:\n"
        "  use: files\n"
        "  dir: data/sessions\n"
        "  maybe: ./x.db\n"
        "  many: [a, /abs/b, ~/c]\n"
        "  named: {one: {file: m/one.gguf}}\n"
        "  label: keep/me\n"
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # `run` from another folder: the same paths
    options = load_config(_host(), config_file).store.options
    assert options.dir == folder / "data/sessions"
    assert options.maybe == folder / "x.db"
    assert options.many == [folder / "a", Path("/abs/b"), Path(os.path.expanduser("~/c"))]
    assert options.named["one"].file == folder / "m/one.gguf"
    assert options.label == "keep/me"  # a str field is not a path


def test_defaults_and_the_embedded_config_are_left_alone(tmp_path: Path) -> None:
    config_file = tmp_path / "agentframe.yaml"
    config_file.write_text("adapter: scripted\nstore: files\n")
    options = load_config(_host(), config_file).store.options
    assert options.dir == Path("relative-default")  # the part's docs define its defaults


def test_a_part_knows_where_it_is_selected(tmp_path: Path) -> None:
    config_file = tmp_path / "agentframe.yaml"
    config_file.write_text("adapter: scripted\n\nstore:\n  dir: x\n  use: files\n")
    store = load_config(_host(), config_file).store
    issue = store.issue("something is wrong", "use")
    assert str(issue) == f"{config_file}:5: store.use: something is wrong"


def test_load_part_reads_one_block_only(tmp_path: Path) -> None:
    config_file = tmp_path / "agentframe.yaml"
    config_file.write_text("store: {use: no-such-store}\nadapter: {use: scripted, replies: [x]}\n")
    host = PluginHost()
    part = load_part(host, Kind.ADAPTER, config_file)
    assert part is not None and part.options.replies == ["x"]
    assert load_part(host, Kind.ADAPTER, config_file, only="llamacpp") is None
    config_file.write_text("store: {use: no-such-store}\n")
    part = load_part(host, Kind.ADAPTER, config_file, absent="scripted", only="scripted")
    assert part is not None and part.name == "scripted"
    config_file.write_text("adapter: {use: scripted, replise: [x]}\n")
    with pytest.raises(ConfigError, match=r"agentframe.yaml:1: adapter.replise: unknown option"):
        load_part(host, Kind.ADAPTER, config_file)


def test_a_missing_default_store_says_it_is_the_default(tmp_path: Path) -> None:
    host = PluginHost()
    host.entry_points = dict  # type: ignore[method-assign]  # no plugin installed but the kernel
    config_file = tmp_path / "agentframe.yaml"
    config_file.write_text("adapter: scripted\n")
    with pytest.raises(ConfigError) as caught:
        load_config(host, config_file)
    (issue,) = [i for i in caught.value.issues if i.path == "store"]
    assert "not set, so the default store 'sqlite' is used" in issue.message
    assert "pip install agentframe-store-sqlite" in issue.message
    assert "choose an installed store (memory)" in issue.message
    assert "`store: {use: memory}`" in issue.message
