"""The runtime hooks around one tool call: the gate before it, the feedback after it.

Before: every `agentframe_gate_tool_call` answer is read in plugin order; the first refusal or
question decides (a question goes to the person through `RunContext.ask`, and a call nobody
accepted is refused, saying why), the first replacement arguments are used, a `stop` refuses
the call and ends the run. After a call that passed the gate: `agentframe_tool_result`
answers add text to the result the model reads, or end the run.
"""

from __future__ import annotations

import logging
from dataclasses import replace

from ..contract.model import ToolCall
from ..contract.protocols import RunContext
from ..contract.questions import Question
from ..contract.runtimehooks import runtime_verdicts
from ..contract.tools import ToolResult

__all__ = ["after_call", "gate"]

log = logging.getLogger("agentframe.tools")

#: The outcome a run ends with when a runtime hook stops it (`HookVerdict.stop`).
BLOCKED = "blocked"


async def gate(call: ToolCall, ctx: RunContext) -> tuple[ToolResult | None, ToolCall]:
    """(a refusal, the call) or (None, the call to run: its arguments maybe replaced)."""
    verdicts = await runtime_verdicts(
        ctx.stack.hooks,
        "agentframe_gate_tool_call",
        ctx=ctx,
        name=call.name,
        arguments=call.arguments,
    )
    arguments = next((v.arguments for v in verdicts if v.arguments is not None), None)
    if arguments is not None:
        call = ToolCall(call.id, call.name, arguments)
    for verdict in verdicts:
        if verdict.stop:
            return ToolResult(f"tool call refused: {verdict.stop}", True, outcome=BLOCKED), call
        if verdict.block:
            return ToolResult(f"tool call refused: {verdict.block}", True), call
        if verdict.ask:
            refusal = await _asked(verdict.ask, call, ctx)
            if refusal is not None:
                return refusal, call
            break
    return None, call


async def _asked(message: str, call: ToolCall, ctx: RunContext) -> ToolResult | None:
    """None when the person accepts the call; else the refusal, with their reason."""
    await runtime_verdicts(
        ctx.stack.hooks,
        "agentframe_notification",
        ctx=ctx,
        message=message,
        kind="permission_prompt",
    )
    answer = await ctx.ask(Question(message, source="permissions"))
    if answer.action == "accept":
        return None
    why = f": {answer.reason}" if answer.reason else ""
    return ToolResult(f"tool call refused: {message} — {answer.action}d{why}", True)


async def after_call(call: ToolCall, result: ToolResult, ctx: RunContext) -> ToolResult:
    """`result` with what the `agentframe_tool_result` hooks add (feedback, a stop). A hook
    that fails is logged: the call ran, and its result stands."""
    try:
        verdicts = await runtime_verdicts(
            ctx.stack.hooks,
            "agentframe_tool_result",
            "context",
            ctx=ctx,
            name=call.name,
            arguments=call.arguments,
            result=result,
        )
    except Exception:
        log.exception(
            "an agentframe_tool_result hook failed after %s; its result stands", call.name
        )
        return result
    if not verdicts:
        return result
    added = [v.context for v in verdicts if v.context]
    feedback = [v.block for v in verdicts if v.block]
    stop = next((v.stop for v in verdicts if v.stop), None)
    content = "\n\n".join([result.content, *added, *feedback])
    is_error = result.is_error or bool(feedback)
    if stop is not None:
        return replace(result, content=f"{content}\n\nthe run was stopped: {stop}", outcome=BLOCKED)
    return replace(result, content=content, is_error=is_error)
