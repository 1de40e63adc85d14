"""An agent definition: who the model is told it is, and what it may do.

Loaded from Markdown files with YAML frontmatter (camelCase keys) by `AgentLoader`s; the body
is the system prompt. This module holds only the validated shape; discovery and prompt
assembly live with the loaders.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, PositiveInt
from pydantic.alias_generators import to_camel

__all__ = ["AgentDefinition", "Backoff", "CompletionRequirement", "ToolSettings"]


def _name_list(value: Any) -> Any:
    """`tools: Read, Grep` and `tools: [Read, Grep]` mean the same."""
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return value


NameList = Annotated[list[str], BeforeValidator(_name_list)]


class _Camel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, frozen=True)


class Backoff(_Camel):
    """Retries with delay `min(base_delay_ms * 2**(n-1), max_delay_ms)` before retry n."""

    max_retries: int = Field(default=3, ge=0)
    base_delay_ms: int = Field(default=500, ge=0)
    max_delay_ms: int = Field(default=30_000, ge=0)

    def delay(self, attempt: int) -> float:
        """Seconds to wait before retry `attempt` (1-based)."""
        delay_ms: int = min(self.base_delay_ms * 2 ** (attempt - 1), self.max_delay_ms)
        return delay_ms / 1000


class CompletionRequirement(_Camel):
    tool: str
    reminder: str
    recovery: Backoff = Field(default_factory=Backoff)


class ToolSettings(_Camel):
    retry: Backoff | None = None
    timeout_secs: float | None = Field(default=None, gt=0)


class AgentDefinition(_Camel):
    name: Annotated[str, Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")]
    description: str
    prompt: str = ""
    prompt_mode: Literal["extend", "full"] = "extend"
    tools: NameList | None = None
    disallowed_tools: NameList = Field(default_factory=list)
    model: str | None = None
    max_turns: PositiveInt | None = None
    permission_mode: Literal["default", "acceptEdits", "dontAsk", "plan"] = "default"
    skills: NameList = Field(default_factory=list)
    agents_md: bool = True
    output_format: Literal["default", "concise"] = "default"
    tool_name_overrides: dict[str, str] = Field(default_factory=dict)
    param_name_overrides: dict[str, dict[str, str]] = Field(default_factory=dict)
    completion_requirement: CompletionRequirement | None = None
    tool_config: dict[str, ToolSettings] = Field(default_factory=dict)
    #: Where it came from: the file (None for definitions built in code) and its level.
    path: Path | None = Field(default=None, exclude=True)
    source: str = Field(default="code", exclude=True)

    def allows(self, tool: str) -> bool:
        """Is the canonical tool name permitted? The denylist wins over the allowlist."""
        if tool in self.disallowed_tools:
            return False
        return self.tools is None or tool in self.tools

    @property
    def adapter_model(self) -> str | None:
        """The model this agent asks for, or None to inherit the stack's."""
        return None if self.model in (None, "", "inherit") else self.model
