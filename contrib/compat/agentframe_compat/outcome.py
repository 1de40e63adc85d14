"""What Claude Code makes of a command hook's exit code and output, per event.

Exit 0: stdout that is a JSON object is read as Claude Code's hook output (`continue`,
`stopReason`, `systemMessage`, `decision`/`reason`, `hookSpecificOutput` with
`permissionDecision`, `permissionDecisionReason`, `updatedInput`, `additionalContext`);
other stdout is context for `UserPromptSubmit` and `SessionStart` only. Exit 2 blocks where
the event can be blocked, with stderr as the reason (its stdout ignored). Any other exit, a
timeout or a flood is a non-blocking error: a warning naming the hook, and the run goes on.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

from .hookrunner import Ran
from .hooks import Hook

__all__ = ["HookAnswer", "read_answer"]

log = logging.getLogger("agentframe.claude-hooks")

#: Events whose plain stdout is context for the model.
_CONTEXT_STDOUT = frozenset({"UserPromptSubmit", "SessionStart"})
#: Events an exit code 2 blocks (PostToolUse: the reason is fed back; the call already ran).
_BLOCKING = frozenset({"PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SubagentStop"})


@dataclass(frozen=True, slots=True)
class HookAnswer:
    """One hook's answer: `permission` (allow, deny, ask) for PreToolUse, `block` with its
    reason, context for the model, replacement input, and `stop` (`continue: false`)."""

    permission: str | None = None
    reason: str = ""
    block: str | None = None
    context: str = ""
    updated_input: dict[str, Any] | None = None
    stop: str | None = None


def read_answer(hook: Hook, ran: Ran) -> HookAnswer:
    """`ran` read as Claude Code reads it for `hook`'s event."""
    event = hook.event
    if ran.failure is not None or (ran.code is not None and ran.code not in (0, 2)):
        why = ran.failure or f"exit {ran.code}"
        log.warning(
            "%s failed: %s%s", hook.name, why, f": {ran.stderr[:2000]}" if ran.stderr else ""
        )
        return HookAnswer()
    if ran.code == 2:
        reason = ran.stderr or f"blocked by {hook.name}"
        if event in _BLOCKING:
            permission = "deny" if event == "PreToolUse" else None
            return HookAnswer(permission=permission, reason=reason, block=reason)
        log.warning("%s: %s", hook.name, reason)
        return HookAnswer()
    output = _json_object(ran.stdout)
    if output is None:
        return HookAnswer(context=ran.stdout if event in _CONTEXT_STDOUT else "")
    return _structured(hook, output)


def _structured(hook: Hook, output: dict[str, Any]) -> HookAnswer:
    event = hook.event
    if isinstance(output.get("systemMessage"), str):
        log.warning("%s: %s", hook.name, output["systemMessage"])
    stop = None
    if output.get("continue") is False:
        stop = _text(output.get("stopReason")) or f"stopped by {hook.name}"
    specific = output.get("hookSpecificOutput")
    specific = specific if isinstance(specific, dict) else {}
    context = _text(specific.get("additionalContext"))
    decision, reason = output.get("decision"), _text(output.get("reason"))
    permission = None
    updated = None
    if event == "PreToolUse":
        permission = specific.get("permissionDecision")
        reason = _text(specific.get("permissionDecisionReason")) or reason
        if permission not in ("allow", "deny", "ask"):  # the older `decision` field
            permission = {"approve": "allow", "block": "deny"}.get(str(decision))
        if isinstance(specific.get("updatedInput"), dict):
            updated = specific["updatedInput"]
        block = (reason or f"denied by {hook.name}") if permission == "deny" else None
    else:
        block = (reason or f"blocked by {hook.name}") if decision == "block" else None
        if block is not None and event not in _BLOCKING:
            log.warning("%s: %s", hook.name, block)
            block = None
    return HookAnswer(permission, reason, block, context, updated, stop)


def _json_object(text: str) -> dict[str, Any] | None:
    if not text.startswith("{"):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""
