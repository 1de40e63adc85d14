"""The wire contract of agent mode: where files go, what they hold, how ids are made.

It is shared with the agent-mode tools this design comes from, so it is fixed:

- task envelope `agent_inbox/<task_id>.task.json`: `{task_id, step, context_label, system,
  user, max_tokens, timeout_seconds, created_at}`;
- answer `agent_outbox/<task_id>.answer.json`: `{task_id, answer}`;
- sentinel `agent_outbox/<task_id>.done`, zero bytes, created after the answer; readers wait
  for it, never for the answer file;
- every file is written under a name ending in `.tmp`, then renamed into place;
- `task_id = sha256(system + "\\n--user--\\n" + user + "\\n--ctx--\\n" + context_label)`.

Optional fields (`envelope_version`, `messages`, `tools`, `response_schema` in a task;
`tool_calls`, `usage`, `model`, `finish_reason`, `error` in an answer) only add to it: `system`
and `user` always hold the whole prompt, so a drainer that knows only the base contract works.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agentframe_core import (
    FileReadError,
    Message,
    ToolCall,
    ToolSpec,
    Usage,
    atomic_write,
    decode_arguments,
    new_id,
    read_text_file,
    textualize,
)

from .errors import InvalidTaskIdError, MalformedAnswerError, MalformedTaskError

__all__ = [
    "ENVELOPE_VERSION",
    "MAX_ENVELOPE_BYTES",
    "Answer",
    "Folder",
    "Task",
    "TaskPaths",
    "atomic_write",
    "build_task",
    "decode_messages",
    "decode_tool_calls",
    "encode_answer",
    "is_drainer_id",
    "is_task_id",
    "load_json_object",
    "parse_answer",
    "parse_task",
    "read_envelope",
    "render_conversation",
    "set_aside",
    "step_of",
    "task_id",
    "utc_now",
    "write_answer",
]

ENVELOPE_VERSION = 2
#: The largest task or answer file read: a long conversation fits many times over; a larger
#: file is malformed and never read into memory.
MAX_ENVELOPE_BYTES = 64 * 2**20
#: The largest claim or heartbeat file read (they hold a few short fields).
MAX_NOTE_BYTES = 64 * 2**10

_TASK_ID = re.compile(r"[0-9a-f]{64}")
#: A drainer id names its heartbeat file: one plain file name, never a path.
_DRAINER_ID = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,199}")
TASK_SUFFIX = ".task.json"
ANSWER_SUFFIX = ".answer.json"
DONE_SUFFIX = ".done"
CLAIM_SUFFIX = ".claim"
TMP_SUFFIX = ".tmp"


def task_id(system: str, user: str, context_label: str) -> str:
    """The contract's id: same prompt and label, same task (and so a cached answer)."""
    text = system + "\n--user--\n" + user + "\n--ctx--\n" + context_label
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def is_task_id(value: object) -> bool:
    return isinstance(value, str) and _TASK_ID.fullmatch(value) is not None


def is_drainer_id(value: object) -> bool:
    """A name that is safe as a file name in the heartbeats folder (hostname-pid-hex)."""
    return isinstance(value, str) and _DRAINER_ID.fullmatch(value) is not None and ".." not in value


def step_of(context_label: str) -> str:
    """The first token of the label, split on whitespace or `:` (`"pass2:doc.md"` -> `pass2`)."""
    return next((token for token in re.split(r"[\s:]+", context_label) if token), "")


def utc_now() -> str:
    """ISO-8601 UTC with a `Z`, to the millisecond."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


# -- the folder ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TaskPaths:
    """Every file of one task. Built only from a validated id."""

    id: str
    task: Path
    answer: Path
    done: Path
    claim: Path

    def rejected(self, n: int) -> Path:
        """Where the `n`th answer set aside (malformed, or retried) is kept, for inspection."""
        return self.answer.with_name(f"{self.answer.name}.rejected.{n}")


@dataclass(frozen=True, slots=True)
class Folder:
    """A working folder holding `agent_inbox/`, `agent_outbox/` and the drainers' heartbeats."""

    root: Path

    @property
    def inbox(self) -> Path:
        return self.root / "agent_inbox"

    @property
    def outbox(self) -> Path:
        return self.root / "agent_outbox"

    @property
    def heartbeats(self) -> Path:
        return self.root / "agent_heartbeat"

    def ensure(self) -> None:
        for folder in (self.inbox, self.outbox, self.heartbeats):
            folder.mkdir(parents=True, exist_ok=True)

    def paths(self, task_id: str) -> TaskPaths:
        """The files of `task_id`, which is validated before any path is built."""
        if not is_task_id(task_id):
            raise InvalidTaskIdError(task_id)
        return TaskPaths(
            id=task_id,
            task=self.inbox / f"{task_id}{TASK_SUFFIX}",
            answer=self.outbox / f"{task_id}{ANSWER_SUFFIX}",
            done=self.outbox / f"{task_id}{DONE_SUFFIX}",
            claim=self.inbox / f"{task_id}{CLAIM_SUFFIX}",
        )


# -- tasks --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Task:
    """A task envelope, decoded."""

    task_id: str
    step: str
    context_label: str
    system: str
    user: str
    max_tokens: int | None
    timeout_seconds: float
    created_at: str
    messages: list[Message] | None = None
    tools: list[ToolSpec] = field(default_factory=list)
    response_schema: dict[str, Any] | None = None

    def conversation(self) -> list[Message]:
        """The messages to send a model: the full ones when given, else system + user."""
        if self.messages is not None:
            return self.messages
        head = [Message("system", self.system)] if self.system else []
        return [*head, Message("user", self.user)]


def _number(value: float) -> float | int:
    return int(value) if float(value).is_integer() else value


def build_task(
    messages: Sequence[Message],
    *,
    context_label: str,
    max_tokens: int | None,
    timeout_seconds: float,
    tools: Sequence[ToolSpec] = (),
    response_schema: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The envelope for one request: base fields first, then the optional ones."""
    system = "\n\n".join(m.content for m in messages if m.role == "system")
    user = render_conversation([m for m in messages if m.role != "system"], tools)
    envelope: dict[str, Any] = {
        "task_id": task_id(system, user, context_label),
        "step": step_of(context_label),
        "context_label": context_label,
        "system": system,
        "user": user,
        "max_tokens": max_tokens,
        "timeout_seconds": _number(timeout_seconds),
        "created_at": utc_now(),
        "envelope_version": ENVELOPE_VERSION,
        "messages": [_encode_message(m) for m in messages],
    }
    if tools:
        envelope["tools"] = [
            {"name": t.name, "description": t.description, "parameters": t.parameters}
            for t in tools
        ]
    if response_schema is not None:
        envelope["response_schema"] = response_schema
    return envelope


def render_conversation(messages: Sequence[Message], tools: Sequence[ToolSpec] = ()) -> str:
    """The `user` field: a lone user message as itself, anything longer as a transcript.

    Tool calls and results are written as the kernel's text tools write them (`textualize`:
    the `{"tool": ..., "args": ...}` a model would reply, then `[result of <tool>]`), so a
    drainer that reads only `system` and `user` sees the history in the very form the loop
    teaches a model without native tools. Each message keeps a `[role]` header: without it
    a transcript could not tell the model's earlier replies from the user's words. When tools
    travel natively, the tools on offer close the transcript.
    """
    if len(messages) == 1 and messages[0].role == "user" and not tools:
        return messages[0].content
    blocks = [f"[{m.role}]\n{m.content}" for m in textualize(list(messages))]
    if tools:
        listed = [
            f"- {t.name}: {t.description}\n  parameters: {json.dumps(t.parameters, sort_keys=True)}"
            for t in tools
        ]
        blocks.append("[tools you may call]\n" + "\n".join(listed))
    return "\n\n".join(blocks)


def _encode_message(message: Message) -> dict[str, Any]:
    data: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        data["tool_calls"] = [_encode_call(c) for c in message.tool_calls]
    if message.tool_call_id is not None:
        data["tool_call_id"] = message.tool_call_id
    if message.name is not None:
        data["name"] = message.name
    return data


def _encode_call(call: ToolCall) -> dict[str, Any]:
    return {"id": call.id, "name": call.name, "arguments": call.arguments}


def read_envelope(path: Path, error: type[MalformedAnswerError] | type[MalformedTaskError]) -> str:
    """The text of a task or answer file, bounded: a file that is not a regular file, is over
    `MAX_ENVELOPE_BYTES` or is not UTF-8 is malformed (an `error` naming it)."""
    try:
        return read_text_file(path, MAX_ENVELOPE_BYTES, "file")
    except FileReadError as err:
        raise error(path, err.reason) from None


def load_json_object(path: Path | str, limit: int) -> dict[str, Any]:
    """The JSON object in `path`, or {} when there is none to read: missing, not a regular
    file, over `limit` bytes, not UTF-8, not JSON or not an object (for listings and notes
    that may be half written or hostile)."""
    try:
        data = json.loads(read_text_file(path, limit))
    except (FileReadError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def parse_task(text: str, path: Path) -> Task:
    """Decode an envelope, checking the base fields and any optional ones present."""
    data = _json_object(text, path, MalformedTaskError)
    expected = path.name.removesuffix(TASK_SUFFIX)
    if data.get("task_id") != expected:
        raise MalformedTaskError(path, f"task_id {data.get('task_id')!r} does not match the name")
    for key in ("system", "user"):
        if not isinstance(data.get(key), str):
            raise MalformedTaskError(path, f"`{key}` must be a string")
    label = data.get("context_label", "")
    timeout = data.get("timeout_seconds", 1800)
    max_tokens = data.get("max_tokens")
    if not isinstance(label, str):
        raise MalformedTaskError(path, "`context_label` must be a string")
    if not isinstance(timeout, int | float) or isinstance(timeout, bool) or timeout <= 0:
        raise MalformedTaskError(path, "`timeout_seconds` must be a positive number")
    if max_tokens is not None and (not isinstance(max_tokens, int) or max_tokens <= 0):
        raise MalformedTaskError(path, "`max_tokens` must be a positive integer or null")
    try:
        messages = decode_messages(data["messages"]) if "messages" in data else None
        tools = [
            ToolSpec(str(t["name"]), str(t.get("description", "")), dict(t.get("parameters", {})))
            for t in data.get("tools") or []
        ]
    except (KeyError, TypeError, ValueError) as err:
        raise MalformedTaskError(path, f"bad `messages` or `tools`: {err}") from err
    schema = data.get("response_schema")
    if schema is not None and not isinstance(schema, dict):
        raise MalformedTaskError(path, "`response_schema` must be an object")
    return Task(
        task_id=expected,
        step=str(data.get("step", step_of(label))),
        context_label=label,
        system=data["system"],
        user=data["user"],
        max_tokens=max_tokens,
        timeout_seconds=float(timeout),
        created_at=str(data.get("created_at", "")),
        messages=messages,
        tools=tools,
        response_schema=schema,
    )


_ROLES = ("system", "user", "assistant", "tool")


def decode_messages(items: Any) -> list[Message]:
    """`messages` of an envelope back into Messages; raises ValueError on a bad shape."""
    if not isinstance(items, list):
        raise ValueError("`messages` must be a list")
    messages = []
    for item in items:
        if not isinstance(item, dict) or item.get("role") not in _ROLES:
            raise ValueError(f"not a message: {item!r:.80}")
        messages.append(
            Message(
                item["role"],
                str(item.get("content") or ""),
                tuple(_decode_call(c) for c in item.get("tool_calls") or []),
                item.get("tool_call_id"),
                item.get("name"),
            )
        )
    return messages


def decode_tool_calls(items: Any) -> tuple[ToolCall, ...]:
    """A `tool_calls` list; raises ValueError on a bad shape."""
    if not isinstance(items, list):
        raise ValueError("`tool_calls` must be a list")
    return tuple(_decode_call(item) for item in items)


def _decode_call(item: Any) -> ToolCall:
    if not isinstance(item, dict) or not isinstance(item.get("name"), str) or not item["name"]:
        raise ValueError(f"a tool call needs a `name`: {item!r:.80}")
    try:  # an object, or OpenAI style: the arguments as a JSON string
        arguments = decode_arguments(item.get("arguments", {}))
    except ValueError as err:
        raise ValueError(f"the arguments of {item['name']!r}: {err}") from err
    call_id = item.get("id")
    return ToolCall(
        call_id if isinstance(call_id, str) and call_id else new_id(), item["name"], arguments
    )


# -- answers ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Answer:
    text: str
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = field(default_factory=Usage)
    model: str | None = None
    finish_reason: str | None = None
    #: Set when the drainer could not answer (its model failed): the text is then empty.
    error: str | None = None


def encode_answer(task_id: str, answer: Answer) -> bytes:
    data: dict[str, Any] = {"task_id": task_id, "answer": answer.text}
    if answer.tool_calls:
        data["tool_calls"] = [_encode_call(c) for c in answer.tool_calls]
    if answer.usage != Usage():
        data["usage"] = answer.usage.to_dict()
    if answer.model:
        data["model"] = answer.model
    if answer.finish_reason:
        data["finish_reason"] = answer.finish_reason
    if answer.error is not None:
        data["error"] = answer.error
    return json.dumps(data, ensure_ascii=False, indent=1).encode("utf-8")


def write_answer(paths: TaskPaths, answer: Answer) -> None:
    """The answer file, then the sentinel: a reader that sees `.done` sees the whole answer."""
    atomic_write(paths.answer, encode_answer(paths.id, answer))
    atomic_write(paths.done, b"")


def set_aside(paths: TaskPaths) -> Path | None:
    """Unmark the task as answered so that a drainer takes it again: the sentinel first (so
    nobody reads what follows), then the answer, kept as the next free `rejected(n)` (an
    exclusive link, so no earlier one is ever overwritten), then the claim. Returns where the
    answer was kept, None when there was none."""
    paths.done.unlink(missing_ok=True)
    kept = None
    n = 1
    while kept is None:
        try:
            os.link(paths.answer, paths.rejected(n))
        except FileExistsError:
            n += 1
            continue
        except FileNotFoundError:
            break
        paths.answer.unlink(missing_ok=True)
        kept = paths.rejected(n)
    paths.claim.unlink(missing_ok=True)
    return kept


def parse_answer(text: str, task_id: str, path: Path) -> Answer:
    """Decode an answer file; raises MalformedAnswerError saying what is wrong with it.

    An `answer` given as a JSON object or list (a common slip) is taken as its JSON text.
    """
    data = _json_object(text, path, MalformedAnswerError)
    if data.get("task_id") != task_id:
        raise MalformedAnswerError(path, f"task_id {data.get('task_id')!r} is not {task_id}")
    if "answer" not in data:
        raise MalformedAnswerError(path, "no `answer` field")
    text = data["answer"]
    if isinstance(text, dict | list):
        text = json.dumps(text, ensure_ascii=False)
    if not isinstance(text, str):
        raise MalformedAnswerError(path, "`answer` must be a string")
    try:
        calls = decode_tool_calls(data.get("tool_calls") or [])
    except (TypeError, ValueError) as err:
        raise MalformedAnswerError(path, f"bad `tool_calls`: {err}") from err
    error = data.get("error")
    return Answer(
        text=text,
        tool_calls=calls,
        usage=Usage.from_dict(data.get("usage")),
        model=_text(data.get("model")),
        finish_reason=_text(data.get("finish_reason")),
        error=str(error) if error is not None else None,
    )


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _json_object(
    text: str, path: Path, error: type[MalformedAnswerError] | type[MalformedTaskError]
) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise error(path, f"not JSON: {err.msg} at line {err.lineno} column {err.colno}") from err
    if not isinstance(data, dict):
        raise error(path, f"expected a JSON object, got {type(data).__name__}")
    return data
