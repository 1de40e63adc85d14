"""The `agentfs` adapter: every request a task file, every reply an answer file.

`complete()` writes the envelope (unless the task is already answered: a cache hit, nothing
written), waits for the `.done` sentinel, and reads the answer. A malformed answer is reported
with its path, set aside, and the task asked again; a drainer's own failure is raised.

Capabilities. The adapter cannot know who drains the folder, so by default it declares no
native tool calling: the loop then writes the tools into the prompt and parses a JSON reply,
which every drainer can produce, even one that reads only `system` and `user`. With
`native_tools: true` the tools travel in the envelope's `tools` field and the answer's
`tool_calls`, every one, become the Completion's: right when every drainer is agentframe's own,
backed by a model with native tool calling. Without it, an answer carrying `tool_calls` is
malformed (the loop would read the text and never see them), never silently cut down to text.
A fenced answer is unfenced, by the kernel's rule, only when the request asked for JSON; the
loop's parser reads a fenced tool call itself. `json_schema: true` likewise forwards
`response_schema` for drainers whose model can constrain its output. Answers arrive whole, so
`streaming` is false (the `stream()` method still works: one delta, then the Completion).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PositiveFloat, PositiveInt

from agentframe_core import Capabilities, Completion, CompletionRequest, strip_fence

from .contract import (
    Answer,
    Folder,
    TaskPaths,
    atomic_write,
    build_task,
    parse_answer,
    read_envelope,
    set_aside,
)
from .errors import DrainerFailedError, MalformedAnswerError, TaskTimeoutError
from .liveness import HeartbeatMode, Liveness
from .watch import watch

__all__ = ["AgentFSAdapter", "AgentFSOptions"]

log = logging.getLogger(__name__)

#: Malformed answers to one request before giving up on it.
MAX_REJECTIONS = 3


class AgentFSOptions(BaseModel):
    """`adapter: {use: agentfs, dir: intermediate, ...}`"""

    model_config = ConfigDict(extra="forbid")

    dir: Path = Field(
        default=Path("intermediate"),
        description="The folder holding agent_inbox/ and agent_outbox/ (relative: to the "
        "config file's folder; the default, to the working directory).",
    )
    timeout_seconds: PositiveFloat = Field(
        default=1800, description="How long one request waits for its answer."
    )
    max_tokens: PositiveInt | None = Field(
        default=4096, description="Written into envelopes of requests that do not set one."
    )
    poll_interval: PositiveFloat = Field(
        default=0.25,
        description="The longest gap between two looks for an answer (seconds). With inotify "
        "an answer is seen at once; polling starts at 1 ms and backs off to this.",
    )
    heartbeat: HeartbeatMode = Field(
        default="auto",
        description="auto: fail early when a drainer seen alive goes silent; required: also "
        "fail when none is running; off: wait for the timeout.",
    )
    heartbeat_grace: PositiveFloat = Field(
        default=10.0, description="Seconds a heartbeat may be stale before a drainer is dead."
    )
    context_label: str = Field(
        default="agentframe",
        description="Label of requests whose metadata has no `context_label`. It is part of "
        "the task id: the same prompt under the same label is the same task (a cached answer).",
    )
    native_tools: bool = Field(
        default=False, description="Send tools in the envelope and take `tool_calls` back."
    )
    json_schema: bool = Field(default=False, description="Forward `response_schema`.")


class AgentFSAdapter:
    def __init__(self, options: AgentFSOptions | None = None, *, inotify: bool | None = None):
        self.options = options or AgentFSOptions()
        self.folder = Folder(self.options.dir)
        self.liveness = Liveness(self.folder, self.options.heartbeat, self.options.heartbeat_grace)
        self._inotify = inotify
        self._capabilities = Capabilities(
            native_tools=self.options.native_tools,
            json_schema=self.options.json_schema,
            streaming=False,
        )

    @property
    def capabilities(self) -> Capabilities:
        return self._capabilities

    def envelope(self, request: CompletionRequest) -> dict[str, Any]:
        """The task envelope `request` becomes."""
        label = request.metadata.get("context_label")
        return build_task(
            request.messages,
            context_label=label if isinstance(label, str) else self.options.context_label,
            max_tokens=request.max_tokens or self.options.max_tokens,
            timeout_seconds=self.options.timeout_seconds,
            tools=request.tools if self.options.native_tools else (),
            response_schema=request.response_schema if self.options.json_schema else None,
        )

    async def complete(self, request: CompletionRequest) -> Completion:
        envelope = self.envelope(request)
        paths = self.folder.paths(envelope["task_id"])
        self.folder.ensure()
        if not paths.done.exists():
            _submit(paths, envelope)
        deadline = time.monotonic() + self.options.timeout_seconds
        rejected = 0
        while True:
            await self._wait(paths, deadline)
            try:
                answer = _read(paths)
                if answer.tool_calls:
                    self._check_calls(paths, request)
            except MalformedAnswerError as err:
                rejected += 1
                kept = set_aside(paths)
                if rejected >= MAX_REJECTIONS:
                    raise
                log.warning("%s; set aside as %s, asking again", err, kept and kept.name)
                _submit(paths, envelope)
                continue
            if answer.error is not None:
                set_aside(paths)  # so that a retry asks again instead of reading the failure
                raise DrainerFailedError(paths.answer, answer.error)
            return _completion(answer, request)

    def _check_calls(self, paths: TaskPaths, request: CompletionRequest) -> None:
        """Structured tool calls go to the loop as they are, so they must be what it can take:
        an adapter without native tool calling has the loop read calls from the text."""
        if not self.options.native_tools:
            raise MalformedAnswerError(
                paths.answer,
                "structured `tool_calls`, but the adapter has `native_tools: false`: the loop "
                'reads a tool call from the answer text ({"tool": "<name>", "args": {...}}); '
                "set `native_tools: true` if the drainers answer with `tool_calls`",
            )
        if not request.tools:
            raise MalformedAnswerError(paths.answer, "tool calls, but no tool was offered")

    async def stream(self, request: CompletionRequest) -> AsyncIterator[str | Completion]:
        completion = await self.complete(request)
        if completion.content:
            yield completion.content
        yield completion

    async def _wait(self, paths: TaskPaths, deadline: float) -> None:
        if paths.done.exists():
            return
        name = paths.done.name
        async with watch(
            self.folder.outbox,
            lambda changed, removed: changed == name and not removed,
            self.options.poll_interval,
            inotify=self._inotify,
        ) as changes:
            started = time.monotonic()
            while not paths.done.exists():
                now = time.monotonic()
                if now >= deadline:
                    raise TaskTimeoutError(paths.task, self.options.timeout_seconds)
                self.liveness.check(paths.task, started)
                await changes.wait(min(deadline - now, self.liveness.interval))


def _submit(paths: TaskPaths, envelope: dict[str, Any]) -> None:
    atomic_write(paths.task, json.dumps(envelope, ensure_ascii=False, indent=1).encode("utf-8"))


def _completion(answer: Answer, request: CompletionRequest) -> Completion:
    """The answer as the loop gets it: the text as written, unfenced (by the kernel's rule)
    only when the request asked for JSON; the tool calls, all of them, as they came."""
    text = strip_fence(answer.text) if request.response_schema is not None else answer.text
    return Completion(
        content=text,
        tool_calls=answer.tool_calls,
        usage=answer.usage,
        finish_reason=answer.finish_reason or ("tool_calls" if answer.tool_calls else "stop"),
        model=answer.model or "agentfs",
    )


def _read(paths: TaskPaths) -> Answer:
    if not paths.answer.exists():
        raise MalformedAnswerError(
            paths.answer, "the .done sentinel exists but the answer file does not"
        )
    return parse_answer(read_envelope(paths.answer, MalformedAnswerError), paths.id, paths.answer)
