"""Config files: resolution, profiles, interpolation, and errors that name file, line, path."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, Field, PositiveInt

from agentframe_core.assembly.config import load_config, read_config, validate_block, validate_part
from agentframe_core.assembly.plugins import PluginHost
from agentframe_core.contract.configtypes import Limits
from agentframe_core.contract.errors import ConfigError
from agentframe_core.contract.registry import Kind


@pytest.fixture(scope="module")
def host() -> PluginHost:
    return PluginHost()


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "agentframe.yaml"
    path.write_text(text)
    return path


def issues(host: PluginHost, path: Path, profile: str | None = None) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        load_config(host, path, profile)
    return [str(issue) for issue in caught.value.issues]


GOOD = """\
adapter:
  use: scripted
  replies: ["hi"]
store: {use: memory}
context: verbatim
tools:
  - use: functions
    import: ["agentframe_core.examples:add"]
limits:
  max_turns: 5
"""


def test_a_valid_config(host, tmp_path):
    config = load_config(host, write(tmp_path, GOOD))
    assert config.adapter.name == "scripted"
    assert config.adapter.options.replies == ["hi"]
    assert config.store.name == "memory" and config.context.name == "verbatim"
    assert [t.name for t in config.tools] == ["functions"]
    assert config.limits == Limits(max_turns=5)


def test_a_config_path_may_be_a_string(host, tmp_path, monkeypatch):
    """As `run(config="main.yaml")` takes it; it failed with `'str' object has no attribute
    'parent'` (issue 39)."""
    write(tmp_path, GOOD)
    monkeypatch.chdir(tmp_path)
    config = load_config(host, "agentframe.yaml")
    assert config.file == Path("agentframe.yaml") and config.adapter.name == "scripted"


def test_misspelled_option_names_file_line_and_path(host, tmp_path):
    path = write(tmp_path, GOOD.replace("  replies:", "  replys:"))
    assert issues(host, path) == [
        f"{path}:3: adapter.replys: unknown option for 'scripted' (did you mean 'replies'?)"
    ]


def test_wrong_type(host, tmp_path):
    path = write(tmp_path, GOOD.replace("max_turns: 5", "max_turns: lots"))
    [issue] = issues(host, path)
    assert issue.startswith(f"{path}:10: limits.max_turns: Input should be a valid integer")


def test_unknown_use_lists_installed_names_and_install_hint(host, tmp_path, monkeypatch):
    # A first-party store that is not installed (this checkout installs every real one).
    from agentframe_core.assembly import plugins

    first_party = ("agentframe-store-warp", "plugins/stores/warp")
    monkeypatch.setitem(plugins.FIRST_PARTY, "warp", first_party)
    path = write(tmp_path, GOOD.replace("{use: memory}", "{use: warp}"))
    [issue] = issues(host, path)
    assert issue.startswith(f"{path}:4: store.use: unknown store 'warp'; installed:")
    assert "memory" in issue
    assert "pip install agentframe-store-warp" in issue


def test_unknown_use_suggests_a_close_name(host, tmp_path):
    path = write(tmp_path, GOOD.replace("{use: memory}", "{use: memroy}"))
    assert "(did you mean 'memory'?)" in issues(host, path)[0]


def test_broken_yaml_names_the_line(host, tmp_path):
    path = write(tmp_path, "adapter:\n  use: scripted\n  replies: [oops\nstore: memory\n")
    [issue] = issues(host, path)
    assert issue.startswith(f"{path}:") and "invalid YAML" in issue


def test_every_problem_is_reported_at_once(host, tmp_path):
    text = GOOD.replace("replies:", "replys:").replace("max_turns: 5", "max_turns: 0")
    text += "colour: blue\n"
    found = issues(host, write(tmp_path, text))
    assert len(found) == 3
    assert any("colour: unknown option" in i for i in found)


def test_bad_import_names_the_list_item(host, tmp_path):
    path = write(tmp_path, GOOD.replace("examples:add", "examples:nope"))
    [issue] = issues(host, path)
    assert issue == (
        f"{path}:8: tools[0].import[0]: 'agentframe_core.examples' has no attribute 'nope'"
    )


def test_missing_file(host, tmp_path):
    [issue] = issues(host, tmp_path / "absent.yaml")
    assert "absent.yaml" in issue and "cannot read config file" in issue


def test_env_interpolation_and_home(host, tmp_path, monkeypatch):
    monkeypatch.setenv("REPLY", "from env")
    text = GOOD.replace('["hi"]', '["${REPLY}", "${UNSET_VAR:-fallback}", "$${LITERAL}"]')
    text += "agents: ['~/agents']\n"
    config = load_config(host, write(tmp_path, text))
    assert config.adapter.options.replies == ["from env", "fallback", "${LITERAL}"]
    assert config.agents == [Path.home() / "agents"]


def test_unset_env_without_default_is_an_error(host, tmp_path, monkeypatch):
    monkeypatch.delenv("NOT_SET_ANYWHERE", raising=False)
    path = write(tmp_path, GOOD.replace('["hi"]', '["${NOT_SET_ANYWHERE}"]'))
    [issue] = issues(host, path)
    assert issue.startswith(f"{path}:3: adapter.replies[0]: environment variable NOT_SET_ANYWHERE")


def test_profiles_merge_over_the_top_level(host, tmp_path, monkeypatch):
    monkeypatch.delenv("AGENTFRAME_PROFILE", raising=False)
    text = GOOD + (
        "profile: fast\n"
        "profiles:\n"
        "  fast:\n"
        "    limits: {max_turns: 2}\n"
        "  broken:\n"
        "    store: {use: memory, size: 3}\n"
    )
    path = write(tmp_path, text)
    assert load_config(host, path).limits.max_turns == 2
    assert load_config(host, path).adapter.options.replies == ["hi"]
    assert issues(host, path, "broken") == [
        f"{path}:16: store.size: unknown option for 'memory'; this part takes no options"
    ]
    assert "unknown profile 'nope' (fast, broken)" in issues(host, path, "nope")[0]


def test_embedded_default_is_used_without_a_file(host):
    """The default stack is llama.cpp + SQLite; without those plugins it says what to install."""
    try:
        config = load_config(host, None)
    except ConfigError as err:
        text = str(err)
        assert text.startswith("<embedded default config>:")
        assert "pip install agentframe-llamacpp" in text or "agentframe-store-sqlite" in text
    else:
        assert (config.file, config.adapter.name, config.store.name) == (None, "llamacpp", "sqlite")
        assert [t.name for t in config.tools] == ["functions"]


yaml_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=12,
)
part_names = st.sampled_from(["scripted", "memory", "verbatim", "functions", "nope", ""])
blocks = st.one_of(
    yaml_values,
    st.fixed_dictionaries(
        {"use": part_names},
        optional={
            "replies": yaml_values,
            "import": yaml_values,
            "cycle": yaml_values,
            "x": yaml_values,
        },
    ),
)
configs = st.dictionaries(
    st.sampled_from(
        [
            "adapter",
            "store",
            "context",
            "tools",
            "retrievers",
            "limits",
            "agents",
            "profile",
            "profiles",
            "other",
        ]
    ),
    blocks | st.lists(blocks, max_size=2),
    max_size=6,
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(configs)
def test_validation_never_crashes(host, tmp_path, data):
    """Whatever the YAML, loading either succeeds or raises ConfigError, nothing else."""
    path = tmp_path / "fuzz.yaml"
    path.write_text(yaml.safe_dump(data))
    try:
        load_config(host, path)
    except ConfigError as err:
        assert err.issues and all(str(path) in str(issue) for issue in err.issues)


def test_a_profile_that_changes_the_part_replaces_its_options(host, tmp_path, monkeypatch):
    monkeypatch.delenv("CLOUD_ONLY_KEY", raising=False)
    text = GOOD + (
        "profile: local\n"
        "profiles:\n"
        "  local: {}\n"
        "  other:\n"
        "    adapter: {use: scripted, cycle: true}\n"
        "    store: {use: memory}\n"
        "  cloud:\n"
        "    context: {use: verbatim}\n"
        "    adapter: {use: scripted, replies: ['${CLOUD_ONLY_KEY}']}\n"
    )
    path = write(tmp_path, text)
    # an unset variable used only by an unselected profile is no error
    assert load_config(host, path).adapter.options.replies == ["hi"]
    # same `use`: merged key by key
    merged = load_config(host, path, "other").adapter.options
    assert merged.replies == ["hi"] and merged.cycle is True
    assert "CLOUD_ONLY_KEY is not set" in issues(host, path, "cloud")[0]


def test_a_profile_switching_part_drops_the_base_options(tmp_path):
    import types

    from pydantic import BaseModel, ConfigDict

    from agentframe_core import hookimpl

    class DirOptions(BaseModel):
        model_config = ConfigDict(extra="forbid")
        dir: str

    def agentframe_stores(register):
        register("files", lambda options: options, options=DirOptions)

    plugin = types.ModuleType("files_plugin")
    plugin.agentframe_stores = hookimpl(agentframe_stores)
    own_host = PluginHost()
    own_host.add("files", plugin)
    text = (
        "adapter: {use: scripted}\n"
        "store: {use: files, dir: /tmp/sessions}\n"
        "profiles:\n"
        "  test:\n"
        "    store: {use: memory}\n"
    )
    config = load_config(own_host, write(tmp_path, text), "test")
    assert config.store.name == "memory"  # `dir` belonged to 'files' and is gone


def test_a_factory_that_fails_is_reported_with_its_config_path(tmp_path):
    import types

    from agentframe_core import hookimpl
    from agentframe_core.assembly.stack import build_stack
    from agentframe_core.contract.configtypes import PartBuildError

    def agentframe_stores(register):
        def broken(options):
            raise PermissionError("cannot open /root/sessions.db")

        register("locked", broken)

    plugin = types.ModuleType("locked_plugin")
    plugin.agentframe_stores = hookimpl(agentframe_stores)
    own_host = PluginHost()
    own_host.add("locked", plugin)
    config = load_config(own_host, write(tmp_path, "adapter: scripted\nstore: locked\n"))
    with pytest.raises(
        PartBuildError,
        match=r"store \(store 'locked'\) could not be created: "
        r"PermissionError: cannot open",
    ):
        build_stack(config, own_host)


def test_validate_part_checks_one_part_only(host: PluginHost, tmp_path: Path) -> None:
    """For commands that need one part: the others may be broken or not installed."""
    text = "store: {use: no-such-store}\nadapter:\n  use: scripted\n  replise: []\n"
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        validate_part(host, read_config(path), Kind.ADAPTER)
    (issue,) = caught.value.issues
    assert str(issue).startswith(f"{path}:4: adapter.replise: unknown option for 'scripted'")
    assert "did you mean 'replies'?" in str(issue)
    path.write_text("store: {use: no-such-store}\nadapter: {use: scripted, replies: [hi]}\n")
    assert validate_part(host, read_config(path), Kind.ADAPTER).options.replies == ["hi"]
    assert validate_part(host, read_config(path), Kind.CONTEXT).name == "verbatim"


class _Block(BaseModel):
    model_config = ConfigDict(extra="forbid")
    size: PositiveInt = 1
    retired: None = Field(default=None, exclude=True)


def test_a_plugins_block_is_checked_with_file_line_and_field(tmp_path: Path) -> None:
    """As a part's options are: `serve:` and `telemetry:` had no line, or were a warning."""
    path = write(
        tmp_path,
        "adapter: scripted\nmine:\n  size: 1\nprofiles:\n  big:\n    mine:\n"
        "      size: 0\n      sise: 2\n",
    )
    located = read_config(path, "big")
    with pytest.raises(ConfigError) as caught:
        validate_block(located.data, "mine", _Block, path, "big")
    assert [str(issue) for issue in caught.value.issues] == [
        f"{path}:7: mine.size: Input should be greater than 0",
        f"{path}:8: mine.sise: unknown option (did you mean 'size'?)",
    ]
    assert validate_block(read_config(path).data, "mine", _Block, path).size == 1
    assert validate_block({}, "mine", _Block).size == 1  # absent: the defaults
    with pytest.raises(ConfigError, match=r"valid options: size$"):
        validate_block({"mine": {"zzz": 1}}, "mine", _Block)  # no file: no line


async def test_the_kernel_leaves_the_telemetry_block_to_agentframe_otel(
    host: PluginHost, tmp_path: Path
) -> None:
    """Without agentframe-otel (whose stack hook checks the block) a config with a block
    that plugin would refuse still loads and runs: the kernel reads only `enabled` and
    `capture_content`, as it leaves `serve:` to agentframe-serve."""
    from agentframe_core import Session, Stack

    path = write(
        tmp_path,
        "adapter: {use: scripted, replies: [Hi.]}\nstore: memory\n"
        "telemetry: {keep_days: 0, endpoin: somewhere, capture_content: true}\n",
    )
    config = load_config(host, path)
    parts = (config.adapter.build(), config.store.build(), config.context.build())
    async with Stack(*parts, config=config) as stack:
        assert (await Session(stack).run("hello")).reply == "Hi."
