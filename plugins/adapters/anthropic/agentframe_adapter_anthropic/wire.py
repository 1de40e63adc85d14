"""The Messages API wire format: kernel types to request JSON, response JSON back.

Pure functions, so the format is tested without a network. The kernel speaks chat-completions
semantics (`Message` roles system/user/assistant/tool); the Messages API differs in three ways
handled here: system text is a top-level `system` list, tool calls and results are content
blocks (`tool_use` in an assistant turn, `tool_result` in the next user turn), and consecutive
turns of one role are merged, as the API expects alternating roles.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from agentframe_core import Completion, Message, ToolCall, ToolSpec, Usage, new_id

from .errors import ProtocolError

__all__ = [
    "FINISH_REASONS",
    "RAW_ARGUMENTS",
    "Blocks",
    "cache_control",
    "finish_reason",
    "messages_to_wire",
    "parse_message",
    "parse_usage",
    "place_breakpoints",
    "system_to_wire",
    "tool_to_wire",
]

Blocks = list[dict[str, Any]]

#: Where tool input that is not a JSON object is kept, so the loop's schema check reports it
#: to the model instead of the call failing in the adapter.
RAW_ARGUMENTS = "_raw_arguments"

#: The API's stop reasons as the loop's finish reasons (chat-completions names): `length`
#: marks a cut reply; `pause_turn` (a server tool paused a long turn) is a turn that ended
#: before the model finished, so it reads as cut too; a refusal is OpenAI's `content_filter`.
FINISH_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "pause_turn": "length",
    "refusal": "content_filter",
}

#: The API accepts at most this many `cache_control` breakpoints per request.
MAX_BREAKPOINTS = 4


def finish_reason(stop_reason: Any) -> str | None:
    """The loop's name for `stop_reason` (an unknown one passes through as it is)."""
    if not isinstance(stop_reason, str):
        return None
    return FINISH_REASONS.get(stop_reason, stop_reason)


def system_to_wire(messages: Iterable[Message]) -> Blocks:
    """Every system message's text as one `system` text block each, in order."""
    return [
        {"type": "text", "text": m.content} for m in messages if m.role == "system" and m.content
    ]


def messages_to_wire(
    messages: Iterable[Message], thinking_for: Callable[[str], Blocks] | None = None
) -> list[dict[str, Any]]:
    """The conversation (system messages left out: they go to `system`) as API turns.

    `thinking_for(tool_use_id)` gives back the thinking blocks that came with an assistant
    turn's tool calls: the API needs them, unchanged, before the `tool_use` blocks of the
    turn whose results follow."""
    turns: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "system":
            continue
        role = "assistant" if message.role == "assistant" else "user"
        blocks = _blocks(message, thinking_for)
        if not blocks:
            continue
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})
    return turns


def _blocks(message: Message, thinking_for: Callable[[str], Blocks] | None) -> Blocks:
    if message.role == "tool":
        return [
            {
                "type": "tool_result",
                "tool_use_id": message.tool_call_id or "",
                "content": message.content,
            }
        ]
    blocks: Blocks = []
    if message.role == "assistant" and message.tool_calls and thinking_for is not None:
        blocks.extend(thinking_for(message.tool_calls[0].id))
    if message.content:  # the API refuses empty text blocks
        blocks.append({"type": "text", "text": message.content})
    for call in message.tool_calls:
        blocks.append(
            {"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments}
        )
    return blocks


def tool_to_wire(tool: ToolSpec) -> dict[str, Any]:
    return {"name": tool.name, "description": tool.description, "input_schema": tool.parameters}


def cache_control(mode: str) -> dict[str, str] | None:
    """The `cache_control` value for the `cache` option (None: caching off)."""
    if mode == "off":
        return None
    if mode == "auto":
        return {"type": "ephemeral"}
    return {"type": "ephemeral", "ttl": mode}


def place_breakpoints(body: dict[str, Any], control: Mapping[str, str]) -> int:
    """Mark where the prompt prefix stays stable from one request to the next: the last tool
    (tools come first in the API's prefix order), the last system block, and the last block
    of the last turn, which the next request of the run repeats word for word before adding
    the reply and what follows it. Each mark caches everything before it; the API finds the
    longest cached prefix itself. Returns how many were placed (never more than the API's 4,
    counting any `cache_control` `extra_body` already set)."""
    budget = MAX_BREAKPOINTS - _count_marks(body)
    placed = 0
    targets: list[dict[str, Any] | None] = [
        body["tools"][-1] if body.get("tools") else None,
        body["system"][-1] if body.get("system") else None,
        _last_cacheable_block(body.get("messages") or []),
    ]
    for block in targets:
        if block is None or placed >= budget or "cache_control" in block:
            continue
        block["cache_control"] = dict(control)
        placed += 1
    return placed


def _last_cacheable_block(turns: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Thinking blocks cannot carry `cache_control`: the last block that can."""
    if not turns:
        return None
    for block in reversed(turns[-1]["content"]):
        if block.get("type") not in ("thinking", "redacted_thinking"):
            return block  # type: ignore[no-any-return]
    return None


def _count_marks(value: Any) -> int:
    if isinstance(value, dict):
        return ("cache_control" in value) + sum(_count_marks(v) for v in value.values())
    if isinstance(value, list):
        return sum(_count_marks(v) for v in value)
    return 0


def parse_usage(usage: Any) -> Usage:
    """The API counts uncached input, cache writes and cache reads apart; the kernel's
    `prompt_tokens` is their sum and `cached_tokens` the reads."""
    if not isinstance(usage, dict):
        return Usage()
    fresh, written, read = (
        _count(usage.get(k))
        for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    )
    return Usage(fresh + written + read, _count(usage.get("output_tokens")), read)


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def decode_input(raw: str) -> dict[str, Any]:
    """Streamed tool input (the concatenated `partial_json`); what is not a JSON object is
    kept under `RAW_ARGUMENTS` for the loop to report to the model."""
    if not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except ValueError:
        return {RAW_ARGUMENTS: raw}
    return value if isinstance(value, dict) else {RAW_ARGUMENTS: raw}


def parse_message(data: Any, url: str) -> tuple[Completion, Blocks]:
    """A whole `message` object: the Completion, and its thinking blocks, kept as they are."""
    if not isinstance(data, dict) or not isinstance(data.get("content"), list):
        raise ProtocolError(f"{url} returned no message content: {str(data)[:200]!r}", url=url)
    text: list[str] = []
    calls: list[ToolCall] = []
    thinking: Blocks = []
    for block in data["content"]:
        if not isinstance(block, dict):
            raise ProtocolError(f"{url} returned a content block that is not an object", url=url)
        kind = block.get("type")
        if kind == "text":
            text.append(str(block.get("text") or ""))
        elif kind == "tool_use":
            raw_input = block.get("input")
            arguments = raw_input if isinstance(raw_input, dict) else {RAW_ARGUMENTS: raw_input}
            calls.append(
                ToolCall(str(block.get("id") or new_id()), str(block.get("name") or ""), arguments)
            )
        elif kind in ("thinking", "redacted_thinking"):
            thinking.append(block)
    completion = Completion(
        content="".join(text),
        tool_calls=tuple(calls),
        usage=parse_usage(data.get("usage")),
        finish_reason=finish_reason(data.get("stop_reason")),
        model=data.get("model") if isinstance(data.get("model"), str) else None,
    )
    return completion, thinking
