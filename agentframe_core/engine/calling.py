"""How tools reach the model and its calls come back: one strategy object per run.

`NativeCalling` passes the tool specs in the request and reads the adapter's `tool_calls`.
`TextCalling` is for backends without native tools: the tools are described in the system
prompt, the history is flattened to text, a reply is either plain text or one JSON object
`{"tool": ..., "args": ...}` (constrained by a JSON schema where the backend can), and JSON
that is not for the user is kept out of the streamed tokens.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, NamedTuple, Protocol

from ..contract.llm import Capabilities, Completion, ToolSpec
from ..contract.model import Message, ToolCall
from .output import OutputSpec
from .texttools import parse_reply, textualize, tools_prompt, union_schema
from .toolbox import Toolbox

__all__ = ["ModelReply", "NativeCalling", "TextCalling", "ToolCalling", "tool_calling"]

TokenSink = Callable[[str], Any]


class ModelReply(NamedTuple):
    """What one model call said: text, tool calls, or (text tools only) why it was unusable."""

    content: str
    calls: tuple[ToolCall, ...] = ()
    error: str | None = None


class ToolCalling(Protocol):
    """The places where native and text tool calling differ."""

    #: The request's `tools` and `response_schema` (read on every turn: tool selection may
    #: show more tools during a run).
    @property
    def tools(self) -> list[ToolSpec]: ...

    @property
    def response_schema(self) -> dict[str, Any] | None: ...

    def system_prompt(self, base: str) -> str: ...

    def wire_messages(self, messages: list[Message]) -> list[Message]:
        """The context as the model reads it: tool names as the agent renamed them, and
        (text tools) flattened to text."""
        ...

    def read(self, completion: Completion) -> ModelReply: ...

    def token_sink(self, sink: TokenSink) -> TokenSink:
        """What receives the streamed tokens, to forward to `sink` what is for the user."""
        ...


def tool_calling(
    capabilities: Capabilities, toolbox: Toolbox, output: OutputSpec | None = None
) -> ToolCalling:
    """The strategy for this adapter; with `output`, the final answer is asked for in its
    schema: constrained decoding where the backend has it, else in the system prompt."""
    if capabilities.native_tools:
        return NativeCalling(toolbox, output, constrained=capabilities.json_schema)
    return TextCalling(toolbox, constrained=capabilities.json_schema, output=output)


class NativeCalling:
    def __init__(
        self, toolbox: Toolbox, output: OutputSpec | None = None, *, constrained: bool = False
    ) -> None:
        self.toolbox, self.output = toolbox, output
        self.response_schema = output.schema if output is not None and constrained else None

    @property
    def tools(self) -> list[ToolSpec]:  # the toolbox's: tool selection may show more
        return self.toolbox.specs

    def system_prompt(self, base: str) -> str:
        if self.output is None:
            return base
        return f"{base}\n\n{self.output.instructions()}"

    def wire_messages(self, messages: list[Message]) -> list[Message]:
        return self.toolbox.to_wire(messages) if self.toolbox.renames else messages

    def read(self, completion: Completion) -> ModelReply:
        return ModelReply(completion.content, tuple(completion.tool_calls))

    def token_sink(self, sink: TokenSink) -> TokenSink:
        return sink


class TextCalling:
    def __init__(
        self, toolbox: Toolbox, *, constrained: bool, output: OutputSpec | None = None
    ) -> None:
        self.toolbox, self.constrained, self.output = toolbox, constrained, output
        self.tools: list[ToolSpec] = []
        self._schema: tuple[int, dict[str, Any] | None] | None = None

    @property
    def specs(self) -> list[ToolSpec]:  # the toolbox's: tool selection may show more
        return self.toolbox.specs

    @property
    def response_schema(self) -> dict[str, Any] | None:
        """The union of the calls of the tools shown so far (tool selection may add some)
        and the answer (its output schema, when typed); without tools, the output schema."""
        if self._schema is None or self._schema[0] != len(self.specs):
            answer = self.output.schema if self.output is not None else None
            schema = None
            if self.constrained and self.specs:
                schema = union_schema(self.specs, answer)
            elif self.constrained:
                schema = answer
            self._schema = (len(self.specs), schema)
        return self._schema[1]

    def system_prompt(self, base: str) -> str:
        typed = self.output is not None
        if self.specs:
            base += f"\n\n{tools_prompt(self.specs, constrained=self.constrained, typed=typed)}"
        if self.output is not None:
            base += f"\n\n{self.output.instructions(wrapped=self.constrained and bool(self.specs))}"
        return base

    def wire_messages(self, messages: list[Message]) -> list[Message]:
        if self.toolbox.renames:
            messages = self.toolbox.to_wire(messages)
        return textualize(messages)

    def read(self, completion: Completion) -> ModelReply:
        """The reply's text is the whole truth here: a text-tools adapter sends no calls."""
        content = completion.content
        if not self.specs:
            return ModelReply(content, tuple(completion.tool_calls))
        parsed = parse_reply(content, constrained=self.response_schema is not None)
        if parsed.error is not None:
            return ModelReply(content, error=parsed.error)
        if parsed.call is not None:
            return ModelReply("", (parsed.call,))
        return ModelReply(parsed.answer or "")

    def token_sink(self, sink: TokenSink) -> TokenSink:
        return _TokenFilter(sink, hide_json=bool(self.specs)).feed


class _TokenFilter:
    """Forwards streamed tokens to the user, except what is not for them in text-tools mode:
    a reply that is a JSON tool call is hidden, and of a constrained `{"answer": "..."}`
    reply only the answer's text is shown, decoded as it arrives."""

    _ANSWER = re.compile(r'\{\s*"answer"\s*:\s*"')

    def __init__(self, sink: TokenSink, hide_json: bool) -> None:
        self.sink, self.hide_json = sink, hide_json
        self.mode = "show" if not hide_json else "undecided"
        self.buffer = ""

    def feed(self, token: str) -> None:
        if self.mode == "show":
            self.sink(token)
            return
        if self.mode == "hide":
            return
        self.buffer += token
        if self.mode == "answer":
            self._emit_answer()
            return
        head = self.buffer.lstrip()
        if not head:
            return
        if head[0] not in "{`":
            self.mode = "show"
            self.sink(self.buffer)
            return
        match = self._ANSWER.match(head)
        if match:
            self.mode, self.buffer = "answer", head[match.end() :]
            self._emit_answer()
        elif len(head) > 16 or '"tool"' in head or head[0] == "`":
            self.mode = "hide"

    def _emit_answer(self) -> None:
        """Decode the JSON string in `buffer` up to what is complete; keep a partial escape."""
        out, text, i = [], self.buffer, 0
        while i < len(text):
            char = text[i]
            if char == '"':
                self.mode = "hide"  # the answer ended; the rest is the closing brace
                break
            if char != "\\":
                out.append(char)
                i += 1
                continue
            escape = text[i : i + 6] if text[i + 1 : i + 2] == "u" else text[i : i + 2]
            if len(escape) < 2 or (escape[1] == "u" and len(escape) < 6):
                break  # wait for the rest of the escape
            try:
                out.append(json.loads(f'"{escape}"'))
            except ValueError:
                out.append(escape)
            i += len(escape)
        self.buffer = text[i:]
        if out:
            self.sink("".join(out))
