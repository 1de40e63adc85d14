"""What every endpoint shares: the stack, the agents (each one a model), the gate and the
conversations, and the one way a request becomes a run on a session."""

from __future__ import annotations

import dataclasses
import logging
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from agentframe_core import AgentDefinition, Config, RunContext, Session, Stack, Tool, Usage

from .clienttools import ClientTools
from .conversations import ClientMessage, Conversations, add_messages, check_client_id, parked_calls
from .diagnoses import Diagnoses
from .errors import ApiError
from .gate import Gate
from .remembered import Remembered
from .waiting import Waiting

__all__ = ["Service", "Turn", "usage_json"]

log = logging.getLogger("agentframe.serve")


@dataclass(slots=True)
class Turn:
    """A request ready to run: its session and what the client will resend next time."""

    session: Session
    client_id: str
    owner: str
    messages: list[ClientMessage]
    #: The request's last message when it is the user's: the run sends it, so that a run
    #: elsewhere that answered it already (another request, another replica) is reported
    #: instead of the model being asked again with nothing new.
    prompt: str | None = None
    #: The digest the conversation was recognised by, replaced by the one after this turn.
    recognised: str | None = None


@dataclass(slots=True)
class Service:
    stack: Stack
    agents: dict[str, AgentDefinition]
    cwd: Path
    gate: Gate
    conversations: Conversations
    responses: Remembered
    #: The config the stack was built from (`/v1/stack`, `/v1/traces`), when known.
    config: Config | None = None
    #: Questions of running AG-UI runs, waiting for `POST /v1/questions/{id}`.
    questions: Waiting = field(default_factory=Waiting)
    #: `POST /v1/doctor`'s checks: one run at a time, its result cached.
    diagnoses: Diagnoses = field(default_factory=Diagnoses)

    def agent(self, model: str, param: str = "model") -> AgentDefinition:
        agent = self.agents.get(model)
        if agent is None:
            known = ", ".join(self.agents) or "none"
            raise ApiError(
                404,
                f"{param}: no model {model!r}; the models are this server's agents: {known}",
                param=param,
                code="model_not_found",
            )
        return agent

    def session(
        self, owner: str, client_id: str, agent: AgentDefinition, tools: list[Tool] | None = None
    ) -> Session:
        stack = self.stack
        if tools:
            stack = dataclasses.replace(stack, tools=[*stack.tools, ClientTools(tools)])
        store_id = Conversations.store_id(owner, client_id)
        return Session(stack, store_id, agent=agent, cwd=self.cwd)

    async def check_tool_names(self, tools: list[Tool], agent: AgentDefinition) -> None:
        """A client tool may not take the name of one of the agent's own tools."""
        if not tools:
            return
        ctx = RunContext("serve-tool-names", self.stack, agent)
        own = {t.name for d in self.stack.tools for t in await d.tools(ctx)}
        for i, tool in enumerate(tools):
            if tool.name in own:
                param = f"tools[{i}].function.name"
                raise ApiError(
                    400, f"{param}: {tool.name!r} is one of the agent's own tools", param=param
                )

    async def turn(
        self,
        owner: str,
        agent: AgentDefinition,
        messages: list[ClientMessage],
        *,
        named: str | None,
        param: str,
        tools: list[Tool] | None = None,
    ) -> Turn:
        """The session the request continues (named, recognised or new), with the request's
        new messages stored in it."""
        await self.check_tool_names(tools or [], agent)
        conversations = self.conversations
        new, recognised = messages, None
        if named is not None:
            client_id = check_client_id(named, param)
            if await conversations.exists(owner, client_id):
                answer = max(
                    (i for i, m in enumerate(messages) if m.role == "assistant"), default=-1
                )
                new = messages[answer + 1 :]
        elif (found := await conversations.recognise(owner, messages)) is not None:
            client_id, count, recognised = found
            new = messages[count:]
        else:
            client_id = uuid.uuid4().hex
        session = self.session(owner, client_id, agent, tools)
        results = any(m.role == "tool" for m in new)  # only results need the parked calls
        parked = await parked_calls(self.stack.store, session.id) if results else {}
        await add_messages(session, new, parked)  # refuses an empty `new`
        if new[-1].role == "user":
            return Turn(session, client_id, owner, messages, new[-1].content, recognised)
        return Turn(session, client_id, owner, messages, recognised=recognised)

    async def remember(self, turn: Turn, answer: ClientMessage) -> None:
        await self.conversations.remember(
            turn.owner, [*turn.messages, answer], turn.client_id, turn.recognised
        )


def usage_json(usage: Usage) -> dict[str, object]:
    """Token counts as OpenAI's Chat Completions reports them, cached tokens included."""
    return {
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
        "total_tokens": usage.prompt_tokens + usage.completion_tokens,
        "prompt_tokens_details": {"cached_tokens": usage.cached_tokens},
    }
