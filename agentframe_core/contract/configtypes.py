"""What a validated config is: the part chosen for each extension point, and the limits.

These are contract types: the doctor hook receives a `Config`, a `Stack` carries its `Limits`.
Reading and validating a file into them is `agentframe_core.assembly.config`'s job.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    InstanceOf,
    NonNegativeInt,
    PlainSerializer,
    PositiveFloat,
    PositiveInt,
    WithJsonSchema,
)

from .errors import AgentframeError, ConfigIssue
from .registry import Kind, PartSpec

__all__ = ["AdapterPart", "Config", "Limits", "PartBuildError", "PartConfig", "PartOf"]


class PartBuildError(AgentframeError):
    """A part's factory failed although its options were valid (a file it cannot open...)."""


class Limits(BaseModel):
    """Bounds on one run (one user message answered to completion)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_turns: PositiveInt = Field(default=20, description="Model calls per run.")
    tool_timeout: PositiveFloat = Field(default=120.0, description="Seconds per tool call.")
    max_parallel_tools: PositiveInt = Field(default=4, description="Concurrent calls per reply.")
    inline_result_chars: PositiveInt = Field(
        default=16_000, description="Longer tool results are shown to the model as head+tail."
    )
    max_parse_errors: NonNegativeInt = Field(
        default=2, description="Re-prompts for a malformed text tool call."
    )
    max_repeats: PositiveInt = Field(
        default=3, description="Identical call and result in a row before the run stops."
    )
    retrieval_budget_tokens: NonNegativeInt = Field(
        default=1_000, description="Tokens of retrieved snippets per retriever."
    )
    visible_tools: NonNegativeInt | Literal["auto"] = Field(
        default="auto",
        description="Above this many tools a run shows the model only the most relevant ones "
        "(BM25 over names and descriptions) and `search_tools` for the rest; 0: all tools. "
        "`auto`: one tool per 1024 tokens of the model's context window (at least 4) for "
        "windows up to 32k tokens, else all.",
    )
    turn_lease_seconds: PositiveFloat = Field(
        default=15.0,
        description="Expiry of a session's turn lease, renewed while the turn runs: how long "
        "a killed run can hold up the session's next one.",
    )


@dataclass(frozen=True, slots=True)
class PartConfig:
    """One selected part: its registration and its validated options."""

    spec: PartSpec
    options: Any
    path: str
    #: Where the part is selected (None: the embedded default), for messages about it.
    file: Path | None = None
    line: int | None = None

    @property
    def name(self) -> str:
        return self.spec.name

    def issue(self, message: str, key: str = "") -> ConfigIssue:
        """A problem with this block (or with its `key`), located like validation errors."""
        path = f"{self.path}.{key}" if key else self.path
        return ConfigIssue(self.file, path, message, self.line)

    def build(self) -> Any:
        """The part, or a PartBuildError naming where it was configured."""
        try:
            return self.spec.build(self.options)
        except AgentframeError:
            raise
        except Exception as err:
            raise PartBuildError(
                f"{self.path} ({self.spec.kind.value} {self.name!r}) could not be created: "
                f"{type(err).__name__}: {err}"
            ) from err


@dataclass(frozen=True, slots=True)
class PartOf:
    """Marks a plugin option that is itself a part block (`{use: ..., ...}`) of `kind`: the
    config loader validates it as it does the top-level blocks (the installed plugins, file and
    line in errors) and the option receives the `PartConfig`; `.build()` makes the part."""

    kind: Kind


def _block_of(part: PartConfig) -> dict[str, Any]:
    """A nested part as it is written in the config (`config show`, option fingerprints)."""
    options = part.options
    shown = options.model_dump(mode="json") if isinstance(options, BaseModel) else options
    return {"use": part.name, **(shown or {})}


#: The type of a plugin option that is a model (an adapter block): `sampling.adapter`, say.
AdapterPart = Annotated[
    InstanceOf[PartConfig],
    PartOf(Kind.ADAPTER),
    PlainSerializer(_block_of),
    # `config schema` puts the adapter choice here (pydantic cannot refer outside the model)
    WithJsonSchema({"x-agentframe-part": "adapter"}),
]


@dataclass(frozen=True, slots=True)
class Config:
    file: Path | None
    profile: str | None
    adapter: PartConfig
    store: PartConfig
    context: PartConfig
    retrievers: list[PartConfig] = field(default_factory=list)
    tools: list[PartConfig] = field(default_factory=list)
    agents: list[Path] = field(default_factory=list)
    limits: Limits = field(default_factory=Limits)
    #: The merged, interpolated document this was validated from.
    data: dict[str, Any] = field(default_factory=dict)
