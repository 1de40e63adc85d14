"""`Agent`: a stack, a system prompt and an output type as one Python object.

    agent = Agent("openai:qwen2.5-7b", system="Be brief.", tools=[add], output=Sum)
    result = agent.run_sync("What is 2+3?")
    result.output  # Sum(total=5)

It is the CLI's recipe in code: its parts become a `Config` (`agentparts.py`: blocks validated
against the installed plugins as a YAML file's are, instances used as they are), `build_stack`
makes the stack once, on first use, and every run is a `Session.run` on it, so the parts that
keep state (`store: memory`) keep it across runs. The stack belongs to the event loop of its
first run: async code awaits `run`, sync code calls `run_sync` (one loop kept by the agent).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import uuid
from collections.abc import AsyncGenerator, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..contract.configtypes import Config, Limits
from ..contract.definition import AgentDefinition
from ..contract.errors import AgentframeError
from ..contract.protocols import Closeable, LLMAdapter, Stack
from ..contract.questions import QuestionCallback
from ..engine.definitions.parse import load_definition
from ..engine.output import OutputSpec, OutputValidator
from ..engine.session import RunResult, Session
from ..support.yamlsource import Located
from .agentevents import ProgressEvent, ResultEvent, RunEvent, TokenEvent, ToolEvent
from .agentparts import adapter_config, agent_config
from .config import load_config, validate_config
from .facade import refuse_running_loop
from .plugins import PluginHost
from .stack import build_stack

__all__ = ["Agent", "Conversation"]


class Agent:
    """An agent built in code; `async with` (or `with`, for `run_sync`) closes its parts."""

    def __init__(
        self,
        model: Any = "llamacpp",
        *,
        system: str | None = None,
        tools: Sequence[Any] = (),
        output: Any = None,
        output_retries: int = 2,
        output_validators: Sequence[OutputValidator] = (),
        store: Any = "memory",
        context: Any = "verbatim",
        retrievers: Sequence[Any] = (),
        limits: Limits | Mapping[str, Any] | None = None,
        name: str | None = None,
        cwd: Path | None = None,
    ) -> None:
        """`model`: an adapter, a part block, or `"provider:model"` (`"openai:qwen2.5-7b"`,
        `"llamacpp"`, `"scripted"`). `tools`: functions, tool dispatchers, part blocks.
        `output`: the type of the final answer (a pydantic model, dataclass, TypedDict,
        `list[...]`, a union) or a JSON Schema dict; `RunResult.output` holds it, validated."""
        host = PluginHost()
        config = agent_config(
            host,
            model=model,
            store=store,
            context=context,
            retrievers=retrievers,
            tools=tools,
            limits=limits,
        )
        definition = (
            AgentDefinition(name=name, description=f"{name} (an Agent in Python code)")
            if name
            else None
        )
        typed = _output_spec(output, output_validators, output_retries)
        self._setup(host, config, system, definition, cwd, typed)

    def _setup(
        self,
        host: PluginHost,
        config: Config,
        system: str | None,
        definition: AgentDefinition | None,
        cwd: Path | None,
        output: OutputSpec | None,
    ) -> None:
        self.host, self.config, self.system, self.definition = host, config, system, definition
        self.cwd = cwd or Path.cwd()
        self.output = output
        self._stack: Stack | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._override: LLMAdapter | None = None
        self._owned: list[Any] = []  # adapters built for `override`, closed with the agent
        self._runner: asyncio.Runner | None = None

    @classmethod
    def from_config(
        cls,
        config: str | Path | Mapping[str, Any],
        *,
        profile: str | None = None,
        system: str | None = None,
        output: Any = None,
        output_retries: int = 2,
        output_validators: Sequence[OutputValidator] = (),
    ) -> Agent:
        """The stack of a config file (a path) or of a config's data (a dict, as YAML reads)."""
        host = PluginHost()
        if isinstance(config, Mapping):
            loaded = validate_config(host, Located(dict(config), {}, None))
        else:
            loaded = load_config(host, Path(config), profile)
        agent = cls.__new__(cls)
        typed = _output_spec(output, output_validators, output_retries)
        agent._setup(host, loaded, system, None, None, typed)
        return agent

    @classmethod
    def from_definition(cls, path: str | Path, **parts: Any) -> Agent:
        """The agent a definition file describes (its prompt, tools allowed, turns), on the
        parts given as to `Agent(...)`."""
        agent = cls(**parts)
        agent.definition = load_definition(Path(path))
        return agent

    # -- runs --------------------------------------------------------------------------------

    def session(self, session_id: str | None = None) -> Conversation:
        """A conversation: each of its runs continues the same session (`session_id`: one
        the store already has, to resume it)."""
        return Conversation(self, session_id or uuid.uuid4().hex)

    async def run(
        self,
        prompt: str,
        session: Conversation | str | None = None,
        *,
        on_question: QuestionCallback | None = None,
    ) -> RunResult:
        """Answer `prompt` in `session` (a conversation or a session id; None: a new one)."""
        return await self._conversation(session).run(prompt, on_question=on_question)

    def run_sync(self, prompt: str, session: Conversation | str | None = None) -> RunResult:
        """`run` for code without an event loop; the agent keeps one loop for all of them."""
        return self._conversation(session).run_sync(prompt)

    def run_stream(
        self, prompt: str, session: Conversation | str | None = None
    ) -> AsyncGenerator[RunEvent, None]:
        """The run's events as they happen: tokens, tool calls, parts' progress, and last
        the `ResultEvent`."""
        return self._conversation(session).run_stream(prompt)

    @contextlib.contextmanager
    def override(self, *, model: Any) -> Iterator[Agent]:
        """Runs inside use `model` (an adapter, a block or `"provider:model"`) instead: a
        test puts a `ScriptedAdapter` in place of the real model."""
        if isinstance(model, str | Mapping):
            model = adapter_config(self.host, model).build()
            self._owned.append(model)
        previous, self._override = self._override, model
        try:
            yield self
        finally:
            self._override = previous

    def _conversation(self, session: Conversation | str | None) -> Conversation:
        if isinstance(session, Conversation):
            if session.agent is not self:
                raise ValueError("that conversation belongs to another Agent")
            return session
        return self.session(session)

    async def stack(self) -> Stack:
        """The stack, built on first use, with the model of `override` in force."""
        loop = asyncio.get_running_loop()
        if self._stack is None:
            self._stack, self._loop = build_stack(self.config, self.host), loop
        elif self._loop is not loop:
            raise AgentframeError(
                "this Agent's parts belong to the event loop of its first run; use it from "
                "one loop (async code: `await agent.run`; sync code: `agent.run_sync`)"
            )
        if self._override is None:
            return self._stack
        return dataclasses.replace(self._stack, adapter=self._override)

    def _sync(self) -> asyncio.Runner:
        refuse_running_loop("Agent.run_sync()", "`await agent.run(prompt)` instead")
        if self._runner is None:
            self._runner = asyncio.Runner()
        return self._runner

    # -- closing -----------------------------------------------------------------------------

    async def aclose(self) -> None:
        """Close the parts the agent built (an adapter or store given as an instance too:
        the agent uses it as its own)."""
        stack, self._stack, self._loop = self._stack, None, None
        if stack is not None:
            await stack.aclose()
        owned, self._owned = self._owned, []
        for part in owned:
            if isinstance(part, Closeable):
                with contextlib.suppress(Exception):
                    await part.aclose()

    def close(self) -> None:
        """`aclose` for code that used `run_sync`."""
        if self._runner is None:
            if self._stack is not None:  # built by async runs: close there
                raise AgentframeError("this Agent ran in async code: `await agent.aclose()`")
            return
        runner, self._runner = self._runner, None
        try:
            runner.run(self.aclose())
        finally:
            runner.close()

    async def __aenter__(self) -> Agent:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def __enter__(self) -> Agent:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _output_spec(
    output: Any, validators: Sequence[OutputValidator], retries: int
) -> OutputSpec | None:
    if output is None:
        return None
    return OutputSpec.of(output, validators=validators, retries=retries)


class Conversation:
    """One session of an `Agent`: every run continues it (its `id` is the store's)."""

    def __init__(self, agent: Agent, session_id: str) -> None:
        self.agent, self.id = agent, session_id
        self._session: Session | None = None

    async def run(
        self,
        prompt: str,
        *,
        on_question: QuestionCallback | None = None,
        _events: asyncio.Queue[RunEvent] | None = None,
    ) -> RunResult:
        agent, stack = self.agent, await self.agent.stack()
        if self._session is None:
            self._session = Session(
                stack, self.id, agent=agent.definition, cwd=agent.cwd, system=agent.system
            )
        self._session.stack = stack  # an override may have changed the model
        if _events is None:
            return await self._session.run(prompt, on_question=on_question, output=agent.output)
        events = _events
        return await self._session.run(
            prompt,
            on_token=lambda text: events.put_nowait(TokenEvent(text)),
            on_tool=lambda record: events.put_nowait(ToolEvent(record)),
            on_event=lambda kind, data: events.put_nowait(ProgressEvent(kind, data)),
            on_question=on_question,
            output=agent.output,
        )

    def run_sync(self, prompt: str) -> RunResult:
        return self.agent._sync().run(self.run(prompt))

    async def run_stream(self, prompt: str) -> AsyncGenerator[RunEvent, None]:
        events: asyncio.Queue[RunEvent] = asyncio.Queue()
        task = asyncio.create_task(self.run(prompt, _events=events))
        try:
            while not (task.done() and events.empty()):
                getter = asyncio.ensure_future(events.get())
                await asyncio.wait({getter, task}, return_when=asyncio.FIRST_COMPLETED)
                if getter.done():
                    yield getter.result()
                else:
                    getter.cancel()
            yield ResultEvent(task.result())
        finally:
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
