"""The chat-completions wire format: kernel types to request JSON, response JSON back.

Pure functions and one small accumulator, so the format is tested without a network and the
adapter's hot path is a few dict operations.
"""

from __future__ import annotations

import json
from typing import Any

from agentframe_core import Completion, Message, ToolCall, ToolSpec, Usage, new_id
from agentframe_core import decode_arguments as kernel_decode_arguments

from .errors import ProtocolError

__all__ = [
    "RAW_ARGUMENTS",
    "StreamAssembler",
    "decode_arguments",
    "message_to_wire",
    "parse_completion",
    "parse_usage",
    "response_format",
    "tool_to_wire",
]

#: Where arguments that are not a JSON object are kept, so the loop's schema check reports
#: them to the model instead of the call failing in the adapter.
RAW_ARGUMENTS = "_raw_arguments"


def message_to_wire(message: Message) -> dict[str, Any]:
    wire: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.role == "tool":
        wire["tool_call_id"] = message.tool_call_id
        return wire
    if message.tool_calls:
        wire["content"] = message.content or None
        wire["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
            }
            for call in message.tool_calls
        ]
    if message.name:
        wire["name"] = message.name
    return wire


def tool_to_wire(tool: ToolSpec) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
        },
    }


def response_format(schema: dict[str, Any]) -> dict[str, Any]:
    """OpenAI's structured-output shape, which llama.cpp, vLLM and Ollama also accept."""
    return {"type": "json_schema", "json_schema": {"name": "response", "schema": schema}}


def parse_usage(data: Any) -> Usage:
    """Usage, with cached prompt tokens from `prompt_tokens_details` (OpenAI, llama.cpp,
    vLLM) or llama.cpp's own `timings.cache_n`."""
    if not isinstance(data, dict):
        return Usage()
    usage = data.get("usage")
    if not isinstance(usage, dict):
        return Usage()
    details = usage.get("prompt_tokens_details")
    cached = details.get("cached_tokens") if isinstance(details, dict) else None
    if cached is None:
        timings = data.get("timings")
        cached = timings.get("cache_n") if isinstance(timings, dict) else None
    return Usage(
        int(usage.get("prompt_tokens") or 0),
        int(usage.get("completion_tokens") or 0),
        int(cached or 0),
    )


def decode_arguments(raw: Any) -> dict[str, Any]:
    """The kernel's decoding; what is not a JSON object is kept under `RAW_ARGUMENTS`."""
    try:
        return kernel_decode_arguments(raw)
    except ValueError:
        return {RAW_ARGUMENTS: raw}


def _first_choice(data: Any, url: str) -> dict[str, Any]:
    choices = data.get("choices") if isinstance(data, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ProtocolError(f"{url} returned no choices: {str(data)[:200]!r}", url=url)
    return choices[0]


def parse_completion(data: Any, url: str) -> Completion:
    message = _first_choice(data, url).get("message")
    if not isinstance(message, dict):
        raise ProtocolError(f"{url} returned a choice without a message", url=url)
    calls = []
    for raw in message.get("tool_calls") or ():
        function = raw.get("function") or {}
        calls.append(
            ToolCall(
                raw.get("id") or new_id(),
                function.get("name") or "",
                decode_arguments(function.get("arguments")),
            )
        )
    return Completion(
        content=message.get("content") or "",
        tool_calls=tuple(calls),
        usage=parse_usage(data),
        finish_reason=data["choices"][0].get("finish_reason"),
        model=data.get("model"),
    )


class _PartialCall:
    __slots__ = ("arguments", "id", "name")

    def __init__(self) -> None:
        self.id = ""
        self.name = ""
        self.arguments: list[str] = []


class StreamAssembler:
    """Folds `chat.completion.chunk` objects into text deltas and one final Completion.

    Tool-call deltas arrive by `index`: the id and name once (some servers repeat the name),
    the arguments as string pieces to concatenate.
    """

    def __init__(self, url: str) -> None:
        self.url = url
        self.text: list[str] = []
        self.calls: dict[int, _PartialCall] = {}
        self.usage = Usage()
        self.finish_reason: str | None = None
        self.model: str | None = None

    def feed(self, chunk: Any) -> str:
        """Take one chunk; return its text delta ('' if none)."""
        if not isinstance(chunk, dict):
            raise ProtocolError(f"{self.url} streamed a non-object: {chunk!r:.200}", url=self.url)
        if chunk.get("usage"):
            self.usage = parse_usage(chunk)
        self.model = chunk.get("model") or self.model
        choices = chunk.get("choices")
        if not choices:
            return ""
        choice = choices[0]
        self.finish_reason = choice.get("finish_reason") or self.finish_reason
        delta = choice.get("delta") or {}
        for piece in delta.get("tool_calls") or ():
            partial = self.calls.setdefault(int(piece.get("index") or 0), _PartialCall())
            partial.id = partial.id or piece.get("id") or ""
            function = piece.get("function") or {}
            name = function.get("name")
            if name and name != partial.name:
                partial.name += name
            if function.get("arguments"):
                partial.arguments.append(function["arguments"])
        text = delta.get("content")
        if text:
            self.text.append(text)
            return str(text)
        return ""

    @property
    def finished(self) -> bool:
        return self.finish_reason is not None

    def completion(self) -> Completion:
        calls = tuple(
            ToolCall(p.id or new_id(), p.name, decode_arguments("".join(p.arguments)))
            for _, p in sorted(self.calls.items())
        )
        return Completion(
            content="".join(self.text),
            tool_calls=calls,
            usage=self.usage,
            finish_reason=self.finish_reason,
            model=self.model,
        )
