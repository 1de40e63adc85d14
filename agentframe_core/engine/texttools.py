"""Tool calling for models without native tools: tools in the prompt, JSON in the reply.

The model answers either `{"tool": "<name>", "args": {...}}` to call a tool, or plain text
(or `{"answer": "..."}`) to answer. Where the backend can constrain decoding to a JSON schema,
`union_schema` makes every reply one of those shapes by construction.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ..contract.llm import ToolSpec
from ..contract.model import Message, ToolCall, new_id

__all__ = [
    "ParsedReply",
    "parse_reply",
    "strip_fence",
    "textualize",
    "tools_prompt",
    "union_schema",
]


def tools_prompt(tools: list[ToolSpec], *, constrained: bool, typed: bool = False) -> str:
    """The system-prompt section that teaches a model to call `tools` in JSON (`typed`: the
    final answer's form is said elsewhere, by the output's instructions)."""
    lines = ["# How to call tools", "", "Each tool, with the JSON schema of its arguments:"]
    for spec in tools:
        params = json.dumps(spec.parameters.get("properties", {}), ensure_ascii=False)
        lines.append(f"- {spec.name}: {spec.description.strip() or '(no description)'}")
        lines.append(f"  arguments: {params}")
    lines += [
        "",
        'To call a tool, reply with only a JSON object: {"tool": "<name>", "args": {...}}.',
        "You will get its result in the next message. One call per reply: this overrides",
        "any advice above about several calls in the same reply.",
    ]
    if typed:
        return "\n".join(lines)
    if constrained:
        lines.append('When you have the final answer, reply {"answer": "<your answer>"}.')
        lines.append('When a tool result answers the question, reply {"answer": "..."} with it.')
    else:
        lines.append("When you have the final answer, reply with plain text, not JSON.")
        lines.append("When a tool result answers the question, reply with the answer.")
    return "\n".join(lines)


def union_schema(tools: list[ToolSpec], answer: dict[str, Any] | None = None) -> dict[str, Any]:
    """One object per tool (its name as a constant, its arguments schema), or a final answer
    (text, or a value of the `answer` schema)."""
    options: list[dict[str, Any]] = [
        {
            "type": "object",
            "properties": {"tool": {"const": spec.name}, "args": _closed(spec.parameters)},
            "required": ["tool", "args"],
            "additionalProperties": False,
        }
        for spec in tools
    ]
    options.append(
        {
            "type": "object",
            "properties": {"answer": answer if answer is not None else {"type": "string"}},
            "required": ["answer"],
            "additionalProperties": False,
        }
    )
    return {"oneOf": options} if len(options) > 1 else options[0]


def _closed(schema: dict[str, Any]) -> dict[str, Any]:
    closed = dict(schema)
    closed.setdefault("type", "object")
    closed.setdefault("properties", {})
    return closed


@dataclass(frozen=True, slots=True)
class ParsedReply:
    """Exactly one of: `call` (a tool call), `answer` (final text), `error` (re-ask)."""

    call: ToolCall | None = None
    answer: str | None = None
    error: str | None = None


_WHOLE_FENCE = re.compile(r"\A```[A-Za-z]*[ \t]*\r?\n(.*?)\r?\n?```\Z", re.S)


def strip_fence(text: str) -> str:
    """The inside of a Markdown code fence that is the whole of `text`, else `text` stripped.
    A fence inside prose is prose (an example, a file), never a tool call."""
    stripped = text.strip()
    fenced = _WHOLE_FENCE.match(stripped)
    return fenced.group(1).strip() if fenced else stripped


def parse_reply(text: str, *, constrained: bool = False) -> ParsedReply:
    """Read a model's text reply as a tool call, a final answer, or a salvageable error.

    Only a reply that is a JSON object (raw, or alone in a code fence) can call a tool. JSON
    without a `"tool"` key is an answer, unless decoding was constrained to the tool-union
    schema, where it can only be a malformed call.
    """
    stripped = text.strip()
    candidate = strip_fence(stripped)
    if not candidate.startswith("{"):
        return ParsedReply(answer=stripped)
    try:
        value = json.loads(candidate)
    except ValueError as err:
        if constrained or '"tool"' in candidate:
            return ParsedReply(error=f"your reply is not valid JSON ({err})")
        return ParsedReply(answer=stripped)  # prose that happens to start with a brace
    if not isinstance(value, dict):
        return ParsedReply(answer=stripped)
    if "tool" in value:
        name, args = value.get("tool"), value.get("args", value.get("arguments", {}))
        if not isinstance(name, str) or not name:
            return ParsedReply(error='"tool" must be the name of a tool')
        if not isinstance(args, dict):
            return ParsedReply(error='"args" must be a JSON object')
        return ParsedReply(call=ToolCall(new_id(), name, args))
    if "answer" in value:
        answer = value["answer"]  # a typed answer stays JSON, for its output check
        return ParsedReply(answer=answer if isinstance(answer, str) else json.dumps(answer))
    if constrained:
        return ParsedReply(error='the JSON object needs a "tool" key (or an "answer")')
    return ParsedReply(answer=stripped)


def textualize(messages: list[Message]) -> list[Message]:
    """Rewrite tool calls and results as plain text, for backends without native tools."""
    out: list[Message] = []
    for message in messages:
        if message.tool_calls:
            calls = [json.dumps({"tool": c.name, "args": c.arguments}) for c in message.tool_calls]
            content = "\n".join(filter(None, [message.content, *calls]))
            out.append(Message("assistant", content))
        elif message.role == "tool":
            # Small models otherwise call the same tool again instead of answering with it.
            label = message.name or "tool"
            out.append(
                Message(
                    "user",
                    f"[result of {label}]\n{message.content}\n"
                    "If this answers the question, reply with the answer.",
                )
            )
        else:
            out.append(message)
    return out
