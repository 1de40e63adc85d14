"""What one model call is sent, as text: every message and tool schema, with token counts.

`agentframe run --show-prompt` and `-vv` show it (the logger `agentframe.prompt`, at DEBUG):
the kernel's own view of the request, so it works with any adapter and no tracing plugin.
Counts before the call are estimates (four characters a token, as `RunResult.window_tokens`
estimates); after it, the backend's reported counts follow.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..contract.llm import Completion, CompletionRequest

__all__ = ["PROMPT_LOG", "log_reply", "log_request"]

PROMPT_LOG = logging.getLogger("agentframe.prompt")


def _tokens(text: str) -> int:
    return (len(text) + 3) // 4


def describe(request: CompletionRequest, turn: int) -> str:
    """The request as text: a header per message (role, estimated tokens), its content and
    tool calls verbatim, then each tool's JSON schema."""
    lines: list[str] = []
    total = 0
    for index, message in enumerate(request.messages, 1):
        calls = [
            json.dumps({"id": c.id, "name": c.name, "arguments": c.arguments}, ensure_ascii=False)
            for c in message.tool_calls
        ]
        tokens = _tokens(message.content) + sum(_tokens(c) for c in calls)
        total += tokens
        about = f" (result of {message.tool_call_id})" if message.tool_call_id else ""
        lines.append(f"── [{index}] {message.role}{about}: ~{tokens} tokens")
        if message.content:
            lines.append(message.content)
        lines.extend(f"tool call: {c}" for c in calls)
    schemas = [
        json.dumps(
            {"name": t.name, "description": t.description, "parameters": t.parameters},
            ensure_ascii=False,
        )
        for t in request.tools
    ]
    tool_tokens = sum(_tokens(s) for s in schemas)
    if schemas:
        lines.append(f"── tools ({len(schemas)}): ~{tool_tokens} tokens")
        lines.extend(schemas)
    if request.response_schema is not None:
        lines.append("── response schema: " + json.dumps(request.response_schema))
    head = (
        f"═══ model call {turn}: {len(request.messages)} message(s), {len(schemas)} tool(s), "
        f"~{total + tool_tokens} tokens estimated"
        + (f", model {request.model}" if request.model else "")
    )
    return "\n".join([head, *lines])


def log_request(request: CompletionRequest, turn: int) -> None:
    if PROMPT_LOG.isEnabledFor(logging.DEBUG):
        PROMPT_LOG.debug("%s", describe(request, turn))


def log_reply(completion: Completion, turn: int) -> None:
    if PROMPT_LOG.isEnabledFor(logging.DEBUG):
        usage = completion.usage
        PROMPT_LOG.debug(
            "═══ model call %d reported: %d prompt tokens (%d cached), %d completion tokens, "
            "finish %s",
            turn,
            usage.prompt_tokens,
            usage.cached_tokens,
            usage.completion_tokens,
            completion.finish_reason or "-",
        )
