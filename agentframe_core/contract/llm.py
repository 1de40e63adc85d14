"""What an LLM adapter receives and returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .model import Message, ToolCall

__all__ = ["Capabilities", "Completion", "CompletionRequest", "ToolSpec", "Usage"]


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool as advertised to a model: its model-facing name and JSON schema."""

    name: str
    description: str
    parameters: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What an adapter can do; the loop adapts to it.

    `native_tools`: the backend takes `tools` and returns structured tool calls. Otherwise the
    loop renders tools into the prompt and parses JSON replies. `json_schema`: the backend can
    constrain decoding to `CompletionRequest.response_schema`.
    """

    native_tools: bool = False
    json_schema: bool = False
    streaming: bool = True
    context_window: int | None = None


@dataclass(frozen=True, slots=True)
class CompletionRequest:
    messages: list[Message]
    tools: list[ToolSpec] = field(default_factory=list)
    model: str | None = None
    response_schema: dict[str, Any] | None = None
    max_tokens: int | None = None
    temperature: float | None = None
    #: Free-form labels for adapters that key on them (agentfs uses `context_label`).
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    #: Prompt tokens the backend served from its cache, where it reports them.
    cached_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.cached_tokens + other.cached_tokens,
        )

    def to_dict(self) -> dict[str, int]:
        """The JSON form every report uses (entry meta, `run --json`, tool results)."""
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cached_tokens": self.cached_tokens,
        }

    @classmethod
    def from_dict(cls, value: object) -> Usage:
        """Read `to_dict`'s form back; what another process or a drainer wrote may be
        anything, so a missing, negative or non-integer count reads as 0."""
        if not isinstance(value, dict):
            return cls()

        def count(key: str) -> int:
            raw = value.get(key, 0)
            return raw if isinstance(raw, int) and not isinstance(raw, bool) and raw > 0 else 0

        return cls(count("prompt_tokens"), count("completion_tokens"), count("cached_tokens"))


@dataclass(frozen=True, slots=True)
class Completion:
    """A model's whole reply."""

    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = field(default_factory=Usage)
    finish_reason: str | None = None
    model: str | None = None
