"""What a tool is, and what running one returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Tool", "ToolResult"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Tool:
    """A tool as a dispatcher offers it.

    `parameters` is the JSON schema of the arguments object; the loop validates every call
    against it before `dispatch`. `timeout` (seconds) overrides `limits.tool_timeout`.
    `terminal`: a successful call ends the run (its result is the run's reply).
    `writes`: the tool may change files or state, or execute code; refused in `plan` mode.
    True unless the tool is declared read-only (`writes=False`): a tool whose effect nobody
    stated counts as writing, since plan mode must not guess.
    `pinned`: always shown to the model when the run shows only some tools
    (`limits.visible_tools`); terminal tools are pinned too.
    """

    name: str
    description: str = ""
    parameters: dict[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})
    timeout: float | None = None
    terminal: bool = False
    writes: bool = True
    pinned: bool = False


@dataclass(frozen=True, slots=True)
class ToolResult:
    """The outcome of one tool call, as the model will see it.

    `pending=True` parks the call: `content` is shown as a placeholder and the real result
    arrives later through `Store.enqueue` as a `tool_result` entry with the same
    `tool_call_id`, picked up at the next turn.

    `outcome` (a value of `agentframe_core.Outcome`, e.g. `"unable"`) ends the run with that
    outcome and `content` as its reply, whatever tool returned it: how a tool such as
    `report_inability` stops a run that would otherwise loop.
    """

    content: str
    is_error: bool = False
    pending: bool = False
    meta: dict[str, Any] = field(default_factory=dict)
    outcome: str | None = None
