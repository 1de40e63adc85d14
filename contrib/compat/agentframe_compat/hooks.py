"""Claude Code's `hooks` block: `{"hooks": {EVENT: [{"matcher": M, "hooks": [HOOK, ...]}]}}`.

A HOOK is `{"type": "command", "command": "...", "timeout": SECONDS}` (60 s by default). The
matcher of a tool event is tested on the tool's name as Claude Code spells it (`Bash`,
`mcp__github__create_issue`): `""`, `*` or none match every tool; a name, or names joined by
`|`, match exactly; anything else is a regular expression. `SessionStart` matches its source
(`startup`, `resume`), `PreCompact` its trigger, `Notification` its type, `SessionEnd` its
reason; the other events have no matcher. A malformed block is a `SettingsError` naming the
file and the JSON path; a hook type or event agentframe does not run is a warning.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any

from .settings import SettingsError, SettingsSource

__all__ = ["EVENTS", "Hook", "parse_hooks"]

log = logging.getLogger("agentframe.claude-hooks")

EVENTS = (
    "PreToolUse",
    "PostToolUse",
    "UserPromptSubmit",
    "Stop",
    "SubagentStop",
    "SessionStart",
    "SessionEnd",
    "PreCompact",
    "Notification",
)
DEFAULT_TIMEOUT = 60.0
MAX_TIMEOUT = 3600.0
_PLAIN = re.compile(r"^[\w|-]+$")
_UNMATCHED = frozenset({"UserPromptSubmit", "Stop", "SubagentStop"})


@dataclass(frozen=True, slots=True)
class Hook:
    """One command hook, with where it was written (for every message about it)."""

    event: str
    matcher: str
    command: str
    timeout: float
    source: SettingsSource
    where: str

    def matches(self, value: str | None) -> bool:
        """Does the matcher accept `value` (a tool name, a source, a trigger...)?"""
        if self.event in _UNMATCHED or self.matcher in ("", "*") or value is None:
            return True
        if _PLAIN.match(self.matcher):
            return value in self.matcher.split("|")
        return re.search(self.matcher, value) is not None

    @property
    def name(self) -> str:
        """`PreToolUse hook `cmd` (file, hooks.PreToolUse[0].hooks[0])`."""
        return f"{self.event} hook {self.command!r} ({self.source.path}, {self.where})"


def parse_hooks(data: dict[str, Any], source: SettingsSource) -> list[Hook]:
    """The command hooks of a settings (or hooks.json) object, in file order."""
    block = data.get("hooks")
    if block is None:
        return []
    if not isinstance(block, dict):
        raise SettingsError(f"{source.path}: hooks: an object of events, not {_kind(block)}")
    hooks: list[Hook] = []
    for event, groups in block.items():
        if event not in EVENTS:
            log.warning(
                "%s: hooks.%s: an event agentframe does not fire; ignored", source.path, event
            )
            continue
        if not isinstance(groups, list):
            raise SettingsError(f"{source.path}: hooks.{event}: a list, not {_kind(groups)}")
        for i, group in enumerate(groups):
            hooks.extend(_group(event, i, group, source))
    return hooks


def _group(event: str, i: int, group: Any, source: SettingsSource) -> list[Hook]:
    where = f"hooks.{event}[{i}]"
    if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
        raise SettingsError(f"{source.path}: {where}: an object with a list `hooks`")
    matcher = group.get("matcher") or ""
    if not isinstance(matcher, str):
        raise SettingsError(f"{source.path}: {where}.matcher: a string, not {_kind(matcher)}")
    if matcher not in ("", "*") and not _PLAIN.match(matcher):
        try:
            re.compile(matcher)
        except re.error as err:
            raise SettingsError(f"{source.path}: {where}.matcher: {matcher!r}: {err}") from None
    found = []
    for j, hook in enumerate(group["hooks"]):
        at = f"{where}.hooks[{j}]"
        if not isinstance(hook, dict):
            raise SettingsError(f"{source.path}: {at}: an object, not {_kind(hook)}")
        if hook.get("type") != "command":
            log.warning(
                "%s: %s: hooks of type %r are not run by agentframe (only `command`); ignored",
                source.path,
                at,
                hook.get("type"),
            )
            continue
        command, timeout = hook.get("command"), hook.get("timeout", DEFAULT_TIMEOUT)
        if not isinstance(command, str) or not command.strip():
            raise SettingsError(f"{source.path}: {at}.command: a non-empty string")
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
            raise SettingsError(f"{source.path}: {at}.timeout: seconds, a positive number")
        found.append(Hook(event, matcher, command, min(float(timeout), MAX_TIMEOUT), source, at))
    return found


def _kind(value: Any) -> str:
    return type(value).__name__
