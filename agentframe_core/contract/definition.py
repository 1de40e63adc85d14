"""An agent definition: who the model is told it is, and what it may do.

Loaded from Markdown files with YAML frontmatter (camelCase keys) by `AgentLoader`s; the body
is the system prompt. This module holds the validated shape and the helpers the loop needs to
apply it (allow/deny, name overrides on the wire); parsing and discovery live in
`agentframe_core.engine.definitions`, prompt assembly in `agentframe_core.engine.prompt`.

Numbers and booleans are strict: YAML `maxTurns: true` or `agentsMd: "maybe"` is an error, not
a silent 1 or True.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field
from pydantic.alias_generators import to_camel

from .errors import InvalidFieldError, UnknownToolOverrideError
from .tools import Tool

__all__ = [
    "FRONTMATTER_KEYS",
    "AgentDefinition",
    "Backoff",
    "CompletionRequirement",
    "ToolSettings",
]

#: Lowercase words joined by `-` or `.` (Claude Code agents are named `vue.js-expert`).
NAME_PATTERN = r"^[a-z0-9]+([.-][a-z0-9]+)*$"
_WIRE_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def _name_list(value: Any) -> Any:
    """`tools: Read, Grep` and `tools: [Read, Grep]` mean the same."""
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return value


def _wire_name(value: str) -> str:
    """What a provider accepts as a function or parameter name."""
    if not _WIRE_NAME.match(value):
        raise ValueError(
            f"{value!r} is not a valid model-facing name (1-64 letters, digits, '_' or '-')"
        )
    return value


def _unique(names: dict[str, str]) -> dict[str, str]:
    """Two canonical names mapped to one wire name could not be mapped back."""
    seen: dict[str, str] = {}
    for canonical, wire in names.items():
        if wire in seen:
            raise ValueError(f"{seen[wire]!r} and {canonical!r} both map to {wire!r}")
        seen[wire] = canonical
    return names


NameList = Annotated[list[Annotated[str, Field(min_length=1)]], BeforeValidator(_name_list)]
WireName = Annotated[str, AfterValidator(_wire_name)]
Overrides = Annotated[dict[str, WireName], AfterValidator(_unique)]
Count = Annotated[int, Field(strict=True, ge=0)]
Milliseconds = Annotated[int, Field(strict=True, ge=0)]


class _Camel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, frozen=True)


class Backoff(_Camel):
    """Retries with delay `min(base_delay_ms * 2**(n-1), max_delay_ms)` before retry n."""

    max_retries: Count = 3
    base_delay_ms: Milliseconds = 500
    max_delay_ms: Milliseconds = 30_000

    def delay(self, attempt: int) -> float:
        """Seconds to wait before retry `attempt` (1-based)."""
        delay_ms: int = min(self.base_delay_ms * 2 ** (attempt - 1), self.max_delay_ms)
        return delay_ms / 1000


class CompletionRequirement(_Camel):
    """A run is complete only once `tool` was called; otherwise `reminder` is sent as a user
    message and the run goes on, with `recovery` bounding how often."""

    tool: Annotated[str, Field(min_length=1)]
    reminder: Annotated[str, Field(min_length=1)]
    recovery: Backoff = Field(default_factory=Backoff)


class ToolSettings(_Camel):
    """Per-tool behaviour: retry a failing call, and its own timeout."""

    retry: Backoff | None = None
    timeout_secs: Annotated[float, Field(strict=True, gt=0)] | None = None


class AgentDefinition(_Camel):
    name: Annotated[str, Field(pattern=NAME_PATTERN)]
    description: Annotated[str, Field(min_length=1)]
    prompt: str = ""
    prompt_mode: Literal["extend", "full"] = "extend"
    tools: NameList | None = None
    disallowed_tools: NameList = Field(default_factory=list)
    model: str | None = None
    max_turns: Annotated[int, Field(strict=True, gt=0)] | None = None
    permission_mode: Literal["default", "acceptEdits", "dontAsk", "plan"] = "default"
    skills: NameList = Field(default_factory=list)
    agents_md: Annotated[bool, Field(strict=True)] = True
    output_format: Literal["default", "concise"] = "default"
    tool_name_overrides: Overrides = Field(default_factory=dict)
    param_name_overrides: dict[str, Overrides] = Field(default_factory=dict)
    completion_requirement: CompletionRequirement | None = None
    tool_config: dict[str, ToolSettings] = Field(default_factory=dict)
    #: Where it came from: the file (None for definitions built in code) and its level
    #: (`project`, `user`, `config`, `builtin`, or `code`).
    path: Path | None = Field(default=None, exclude=True)
    source: str = Field(default="code", exclude=True)
    #: The file's line where the body (the prompt) starts, for template errors.
    prompt_line: int = Field(default=1, exclude=True)
    #: Frontmatter lines by dotted key (`toolNameOverrides.read`), for later errors.
    lines: dict[str, int] = Field(default_factory=dict, exclude=True)
    #: Unknown keys and other things `agents check` reports without refusing the file.
    warnings: tuple[str, ...] = Field(default=(), exclude=True)
    #: Folders the loader that read the file keeps skills in (another tool's format has
    #: its own, e.g. `~/.pi/agent/skills`): its skills may live there, beside the project's
    #: and the user's skill folders.
    skill_folders: tuple[Path, ...] = Field(default=(), exclude=True)

    # -- what the agent may use -------------------------------------------------------------

    def allows(self, tool: str) -> bool:
        """Is the canonical tool name permitted? The denylist wins over the allowlist."""
        if tool in self.disallowed_tools:
            return False
        return self.tools is None or tool in self.tools

    @property
    def adapter_model(self) -> str | None:
        """The model this agent asks for, or None to inherit the stack's."""
        return None if self.model in (None, "", "inherit") else self.model

    def tool_names(self, available: Iterable[str]) -> dict[str, str]:
        """Canonical -> model-facing name for each available tool this agent may use, in the
        order given: what `assemble_system_prompt` takes and what the wire advertises."""
        return {name: self.wire_tool_name(name) for name in available if self.allows(name)}

    # -- name overrides: applied on the wire only, the store keeps canonical names ----------

    def wire_tool_name(self, canonical: str) -> str:
        return self.tool_name_overrides.get(canonical, canonical)

    def canonical_tool_name(self, wire: str) -> str:
        """The canonical name of a tool the model called (unknown names come back as given)."""
        for canonical, name in self.tool_name_overrides.items():
            if name == wire:
                return canonical
        return wire

    def wire_arguments(self, tool: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """Arguments of canonical tool `tool` as the model sees them."""
        names = self.param_name_overrides.get(tool, {})
        return {names.get(key, key): value for key, value in arguments.items()}

    def canonical_arguments(self, tool: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """The model's arguments for canonical tool `tool`, mapped back before dispatch."""
        back = {
            wire: canonical for canonical, wire in self.param_name_overrides.get(tool, {}).items()
        }
        return {back.get(key, key): value for key, value in arguments.items()}

    def wire_parameters(self, tool: str, schema: Mapping[str, Any]) -> dict[str, Any]:
        """The JSON schema of canonical tool `tool` with its parameters renamed for the wire
        (top-level `properties` and `required`)."""
        names = self.param_name_overrides.get(tool)
        result = dict(schema)
        if not names:
            return result
        properties = schema.get("properties")
        if isinstance(properties, Mapping):
            result["properties"] = {names.get(k, k): v for k, v in properties.items()}
        required = schema.get("required")
        if isinstance(required, list):
            result["required"] = [names.get(k, k) for k in required]
        return result

    def check_overrides(self, tools: Iterable[Tool]) -> None:
        """Every override must name a tool (and parameter) this agent can actually use, and no
        two tools may end up with the same model-facing name. Raises
        `UnknownToolOverrideError` or `InvalidFieldError` naming the file and line."""
        usable = {tool.name: tool for tool in tools if self.allows(tool.name)}
        for canonical in self.tool_name_overrides:
            if canonical not in usable:
                raise self._unknown_tool("toolNameOverrides", canonical, usable)
        for canonical, params in self.param_name_overrides.items():
            if canonical not in usable:
                raise self._unknown_tool("paramNameOverrides", canonical, usable)
            properties = usable[canonical].parameters.get("properties")
            known = set(properties) if isinstance(properties, Mapping) else set()
            for param in params:
                if param not in known:
                    raise UnknownToolOverrideError(
                        f"tool {canonical!r} has no parameter {param!r}; its parameters: "
                        f"{', '.join(sorted(known)) or 'none'}",
                        **self._where(f"paramNameOverrides.{canonical}.{param}"),
                    )
        seen: dict[str, str] = {}
        for canonical in usable:
            wire = self.wire_tool_name(canonical)
            if wire in seen:
                key = canonical if canonical in self.tool_name_overrides else seen[wire]
                raise InvalidFieldError(
                    f"tools {seen[wire]!r} and {canonical!r} would both be called {wire!r}",
                    **self._where(f"toolNameOverrides.{key}"),
                )
            seen[wire] = canonical

    def _unknown_tool(
        self, key: str, canonical: str, usable: Mapping[str, Tool]
    ) -> UnknownToolOverrideError:
        reason = "is not allowed for this agent" if not self.allows(canonical) else "is unknown"
        return UnknownToolOverrideError(
            f"tool {canonical!r} {reason}; tools this agent can use: "
            f"{', '.join(sorted(usable)) or 'none'}",
            **self._where(f"{key}.{canonical}"),
        )

    def _where(self, key: str) -> dict[str, Any]:
        line = self.lines.get(key) or self.lines.get(key.split(".")[0])
        return {"file": self.path, "line": line, "field": key, "name": self.name}


#: The keys a definition file's frontmatter may hold (everything else is a warning).
FRONTMATTER_KEYS: frozenset[str] = frozenset(
    info.alias or name
    for name, info in AgentDefinition.model_fields.items()
    if not info.exclude and name != "prompt"
)
