"""Claude Code's hooks and permission rules, on the kernel's runtime hooks.

Each kernel hook fires the Claude Code event it stands for, with Claude Code's JSON on the
hook's stdin, and answers with what Claude Code would do: the tool gate runs `PreToolUse`
hooks, then the permission rules (the settings files', and an agent file's `Bash(git:*)`-style
`tools` entries) on the input the hooks left; `agentframe_tool_result` is `PostToolUse`,
`agentframe_prompt_submitted` is `UserPromptSubmit`, `agentframe_run_stopping` is `Stop` (or
`SubagentStop` in a sub-agent's run), and the session hooks are `SessionStart`,
`SessionEnd`, `PreCompact` and `Notification`. A project without settings files costs a
few `stat`s per hook: `plugin.py` imports this module only once there is something to read
(`settings.anything_to_read`).
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentframe_core import HookVerdict, RunContext, ToolResult, require_trust

from .agentrules import agent_rules
from .hiding import read_denied
from .hookrunner import run_hook
from .hooks import Hook
from .names import claude_names
from .outcome import HookAnswer, read_answer
from .permissions import Rules
from .project import ClaudeProject, load_project, project_sources
from .sandboxing import note_unheeded, stack_sandbox
from .transcript import write_transcript

__all__ = [
    "agentframe_compacting",
    "agentframe_gate_tool_call",
    "agentframe_hidden_files",
    "agentframe_notification",
    "agentframe_prompt_submitted",
    "agentframe_run_stopping",
    "agentframe_session_ended",
    "agentframe_session_started",
    "agentframe_tool_result",
]


def _project(ctx: RunContext) -> ClaudeProject:
    """The settings in force for the run; the project's own hooks and grants only in a
    trusted folder (asked once at a terminal, else `UntrustedFolderError` ends the run)."""
    config = ctx.stack.config
    folder, sources = project_sources(config.file if config is not None else None)
    project = load_project(folder, sources)
    if project.sandbox_asked:
        note_unheeded(project.sandbox_asked, config.tools if config is not None else [])
    if project.error is None and not require_trust(folder, project.needs_trust):
        return ClaudeProject(folder, error=f"{folder} is not a trusted folder")  # inspecting
    return project


async def _fire(
    project: ClaudeProject, hooks: list[Hook], ctx: RunContext, event: str, fields: dict[str, Any]
) -> list[HookAnswer]:
    """Run the event's hooks at once (as Claude Code does), in file order of answers, in
    the sandbox of the stack's `Bash` if it has one (`sandboxing.py`)."""
    if not hooks:
        return []
    payload = {
        "session_id": ctx.session_id,
        "transcript_path": str(await write_transcript(ctx, project.folder)),
        "cwd": str(project.folder),
        "permission_mode": project.rules.mode if project.rules else "default",
        "hook_event_name": event,
        **fields,
    }
    config = ctx.stack.config
    sandbox = stack_sandbox(config.tools) if config is not None else None
    ran = await asyncio.gather(
        *(run_hook(hook, payload, project.folder, sandbox) for hook in hooks)
    )
    return [read_answer(hook, outcome) for hook, outcome in zip(hooks, ran, strict=True)]


def _refused(project: ClaudeProject) -> HookVerdict:
    return HookVerdict(block=f"Claude Code settings could not be used: {project.error}")


# -- tool calls --------------------------------------------------------------------------------


def agentframe_gate_tool_call(
    ctx: RunContext, name: str, arguments: dict[str, Any]
) -> HookVerdict | Any | None:
    project = _project(ctx)
    restricted = agent_rules(ctx.agent)
    if project.error is None and not project.hooks and project.rules is None and not restricted:
        return None
    return _gate(project, ctx, name, arguments)


async def _gate(
    project: ClaudeProject, ctx: RunContext, name: str, arguments: dict[str, Any]
) -> HookVerdict | None:
    if project.error is not None:
        return _refused(project)
    names = claude_names(name)
    fields = {"tool_name": names[0], "tool_input": arguments}
    answers = await _fire(
        project, project.hooks_for("PreToolUse", names), ctx, "PreToolUse", fields
    )
    stop = next((a.stop for a in answers if a.stop), None)
    if stop is not None:
        return HookVerdict(block=stop, stop=stop)
    denied = next((a for a in answers if a.permission == "deny"), None)
    if denied is not None:
        return HookVerdict(block=denied.reason or denied.block)
    updated = next((a.updated_input for a in answers if a.updated_input is not None), None)
    effective = updated if updated is not None else arguments
    asked = next((a for a in answers if a.permission == "ask"), None)
    allowed = any(a.permission == "allow" for a in answers)
    refusal = agent_rules(ctx.agent).refusal(name, effective, project.folder)
    if refusal is not None:
        return HookVerdict(block=refusal)
    question = None
    if project.rules is not None:  # a deny rule wins over a hook's allow or ask
        question, refusal = await _by_rules(project.rules, ctx, name, effective, project, allowed)
        if refusal is not None:
            return HookVerdict(block=refusal)
    if asked is not None:
        question = f"{names[0]}: {asked.reason or 'a PreToolUse hook asks'} — allow this call?"
    if question is None and updated is None:
        return None
    return HookVerdict(arguments=updated, ask=question)


async def _by_rules(
    rules: Rules,
    ctx: RunContext,
    name: str,
    arguments: dict[str, Any],
    project: ClaudeProject,
    hook_allowed: bool,
) -> tuple[str | None, str | None]:
    """(a question to ask, a refusal) from the permission rules. An agent file's
    `permissionMode: plan` or `acceptEdits` is the mode of its runs."""
    writes = await _writes(ctx, name)
    if ctx.agent is not None and ctx.agent.permission_mode in ("plan", "acceptEdits"):
        rules = dataclasses.replace(rules, mode=ctx.agent.permission_mode)
    decision = rules.decide(
        name, arguments, writes=writes, cwd=project.folder, hook_allowed=hook_allowed
    )
    tool = claude_names(name)[0]
    if decision.action == "deny":
        return None, f"permission to use {tool} was denied ({decision.why})"
    if decision.action == "ask":
        return f"Allow {tool} {_summary(arguments)}? ({decision.why})", None
    return None, None


_WRITES: dict[int, tuple[RunContext, dict[str, bool]]] = {}


async def _writes(ctx: RunContext, name: str) -> bool:
    """Does the tool `name` change anything (`Tool.writes`)? Asked of the stack's dispatchers
    once per run."""
    known = _WRITES.get(id(ctx))
    if known is None or known[0] is not ctx:
        marks: dict[str, bool] = {}
        for dispatcher in ctx.stack.tools:
            for tool in await dispatcher.tools(ctx):
                marks.setdefault(tool.name, tool.writes)
        if len(_WRITES) > 32:
            _WRITES.clear()
        known = _WRITES[id(ctx)] = (ctx, marks)
    return known[1].get(name, True)


def _summary(arguments: dict[str, Any]) -> str:
    for key in ("command", "file_path", "path", "url", "pattern"):
        if isinstance(arguments.get(key), str):
            return repr(arguments[key][:200])
    return ""


def agentframe_tool_result(
    ctx: RunContext, name: str, arguments: dict[str, Any], result: ToolResult
) -> Any:
    project = _project(ctx)
    hooks = project.hooks_for("PostToolUse", claude_names(name))
    if not hooks or result.is_error:  # Claude Code runs PostToolUse after a success only
        return None
    return _after(project, hooks, ctx, name, arguments, result)


async def _after(
    project: ClaudeProject,
    hooks: list[Hook],
    ctx: RunContext,
    name: str,
    arguments: dict[str, Any],
    result: ToolResult,
) -> HookVerdict:
    response: Any = result.content
    if result.is_error:
        response = {"error": result.content}
    fields = {
        "tool_name": claude_names(name)[0],
        "tool_input": arguments,
        "tool_response": response,
    }
    answers = await _fire(project, hooks, ctx, "PostToolUse", fields)
    return _joined(answers)


def _joined(answers: list[HookAnswer]) -> HookVerdict:
    blocks = [a.block for a in answers if a.block]
    return HookVerdict(
        block="\n".join(blocks) or None,
        context="\n".join(a.context for a in answers if a.context),
        stop=next((a.stop for a in answers if a.stop), None),
    )


# -- the run -----------------------------------------------------------------------------------


def agentframe_prompt_submitted(ctx: RunContext, prompt: str) -> Any:
    project = _project(ctx)
    if project.error is not None:
        return _refused(project)
    hooks = project.hooks_for("UserPromptSubmit")
    return (
        _fire_joined(project, hooks, ctx, "UserPromptSubmit", {"prompt": prompt}) if hooks else None
    )


async def _fire_joined(
    project: ClaudeProject, hooks: list[Hook], ctx: RunContext, event: str, fields: dict[str, Any]
) -> HookVerdict:
    return _joined(await _fire(project, hooks, ctx, event, fields))


def agentframe_run_stopping(ctx: RunContext, reply: str, continued: int) -> Any:
    project = _project(ctx)
    event = "SubagentStop" if ctx.parent is not None else "Stop"
    hooks = project.hooks_for(event)
    fields = {"stop_hook_active": continued > 0}
    return _stopping(project, hooks, ctx, event, fields) if hooks else None


async def _stopping(
    project: ClaudeProject, hooks: list[Hook], ctx: RunContext, event: str, fields: dict[str, Any]
) -> HookVerdict | None:
    """A reason to go on; `continue: false` wins over it and lets the run end as it would."""
    verdict = await _fire_joined(project, hooks, ctx, event, fields)
    return None if verdict.stop else HookVerdict(block=verdict.block)


def agentframe_session_started(ctx: RunContext, resumed: bool) -> Any:
    project = _project(ctx)
    source = "resume" if resumed else "startup"
    hooks = project.hooks_for("SessionStart", source)
    return _fire_joined(project, hooks, ctx, "SessionStart", {"source": source}) if hooks else None


def agentframe_session_ended(ctx: RunContext, reason: str) -> Any:
    return _observe(ctx, "SessionEnd", reason, {"reason": reason})


def agentframe_compacting(ctx: RunContext, trigger: str) -> Any:
    return _observe(ctx, "PreCompact", trigger, {"trigger": trigger, "custom_instructions": ""})


def agentframe_notification(ctx: RunContext, message: str, kind: str) -> Any:
    return _observe(ctx, "Notification", kind, {"message": message, "notification_type": kind})


def _observe(ctx: RunContext, event: str, value: str, fields: dict[str, Any]) -> Any:
    """Events whose hooks cannot change what happens: run them, log what they say."""
    project = _project(ctx)
    hooks = project.hooks_for(event, value)
    return _fire(project, hooks, ctx, event, fields) if hooks else None


# -- what the walking tools leave out ------------------------------------------------------------


def agentframe_hidden_files(
    ctx: RunContext, name: str, arguments: dict[str, Any]
) -> Callable[[Path], bool] | None:
    return read_denied(_project(ctx), ctx, name)
