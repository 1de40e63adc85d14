"""A2A (the `a2a-sdk` package's server): each agent has its card and its JSON-RPC endpoint.

    GET  /a2a/{agent}/.well-known/agent-card.json    the agent card
    POST /a2a/{agent}                                 SendMessage, SendStreamingMessage,
                                                      GetTask, CancelTask (and the v0.3
                                                      names: message/send, message/stream,
                                                      tasks/get, tasks/cancel)

A task is a run on a session: the message's `contextId` is the session (per key, like every
session here). The answer streams as one text artifact, appended chunk by chunk; a
server-side tool that ran is a `working` status update naming it; the task ends
`completed` (its status message holds the reply), `failed`, or `canceled` (the run is
cancelled, its history well-formed). Tasks are kept in the configured store (`records`),
scoped by key (another key's task is not found), so `tasks/get` answers after a restart and
on another replica: written when a task's state changes (not at each streamed chunk; the
chunks since are in this process's copy until the task ends). `tasks/list` lists this
process's tasks only."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from a2a.auth.user import User
from a2a.helpers.proto_helpers import new_task
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.context import ServerCallContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.request_handlers.response_helpers import agent_card_to_dict
from a2a.server.routes.common import ServerCallContextBuilder
from a2a.server.routes.jsonrpc_dispatcher import JsonRpcDispatcher
from a2a.server.tasks import InMemoryTaskStore, TaskStore, TaskUpdater
from a2a.types.a2a_pb2 import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    ListTasksRequest,
    ListTasksResponse,
    Part,
    Task,
    TaskState,
)
from google.protobuf.json_format import (  # type: ignore[import-untyped]
    MessageToDict,
    ParseDict,
)
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import Message, Receive

from agentframe_core import AgentDefinition, Store

from .conversations import check_client_id
from .errors import ApiError
from .records import Records
from .runs import Failed, Finished, Token, ToolDone, events
from .service import Service

__all__ = ["A2A"]

log = logging.getLogger("agentframe.serve")
_OWNER = "agentframe.owner"
_PROTOCOL_HEADERS = {"a2a-version", "a2a-extensions"}


class _KeyUser(User):
    """The key a request came with: the SDK's task store scopes tasks by its name."""

    def __init__(self, name: str) -> None:
        self._name = name

    @property
    def is_authenticated(self) -> bool:
        return True

    @property
    def user_name(self) -> str:
        return self._name


class _Tasks(TaskStore):
    """The SDK's tasks in the store (`records`, by key and task id), this process's copy in
    front: the store is written when a task's state changes, and read on a miss."""

    def __init__(self, store: Store) -> None:
        self.records, self.local = Records(store), InMemoryTaskStore()
        self._states: dict[str, int] = {}

    @staticmethod
    def _owner(context: ServerCallContext) -> str:
        return str(context.user.user_name)

    async def save(self, task: Task, context: ServerCallContext) -> None:
        await self.local.save(task, context)
        where = f"{self._owner(context)}.{task.id}"
        if self._states.get(where) != task.status.state:
            value = MessageToDict(task)
            await self.records.put("task", self._owner(context), task.id, value)
            self._states[where] = task.status.state
            if len(self._states) > 10000:  # states of ended tasks: only a write saved
                self._states.pop(next(iter(self._states)))

    async def get(self, task_id: str, context: ServerCallContext) -> Task | None:
        task = await self.local.get(task_id, context)
        if task is not None:
            return task
        value = await self.records.get("task", self._owner(context), task_id)
        if value is None:
            return None
        try:
            parsed: Task = ParseDict(value, Task(), ignore_unknown_fields=True)
            return parsed
        except Exception:  # an unreadable record is an unknown task
            log.warning("an A2A task record is unreadable")
            return None

    async def list(self, params: ListTasksRequest, context: ServerCallContext) -> ListTasksResponse:
        return await self.local.list(params, context)

    async def delete(self, task_id: str, context: ServerCallContext) -> None:
        await self.local.delete(task_id, context)
        await self.records.drop("task", self._owner(context), task_id)


class _Caller(ServerCallContextBuilder):
    """The key's name as the SDK's user; of the headers, only the protocol's own (the
    SDK keeps them in the context; a key must not be kept anywhere)."""

    def build(self, request: Request) -> ServerCallContext:
        headers = {k: v for k, v in request.headers.items() if k.lower() in _PROTOCOL_HEADERS}
        return ServerCallContext(user=_KeyUser(request.scope[_OWNER]), state={"headers": headers})


class _Executor(AgentExecutor):
    """One task: a run of `agent` on the session of the message's context."""

    def __init__(self, service: Service, agent: AgentDefinition) -> None:
        self.service, self.agent = service, agent

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task_id, context_id = context.task_id or "", context.context_id or ""
        updater = TaskUpdater(event_queue, task_id, context_id)
        owner = context.call_context.user.user_name
        if context.current_task is None:
            history = [context.message] if context.message is not None else []
            submitted = new_task(
                task_id, context_id, TaskState.TASK_STATE_SUBMITTED, history=history
            )
            await event_queue.enqueue_event(submitted)
        try:
            check_client_id(context_id, "contextId")
            release = self.service.gate.hold(owner)
        except ApiError as err:
            await updater.reject(updater.new_agent_message([Part(text=err.message)]))
            return
        try:
            await self._run(context, updater, owner, context_id)
        finally:
            release()

    async def _run(
        self, context: RequestContext, updater: TaskUpdater, owner: str, context_id: str
    ) -> None:
        await updater.start_work()
        session = self.service.session(owner, context_id, self.agent)
        artifact, streamed = str(uuid.uuid4()), False
        async for item in events(session, context.get_user_input()):
            if isinstance(item, Token) and item.text:
                await updater.add_artifact(
                    [Part(text=item.text)], artifact_id=artifact, name="answer", append=streamed
                )
                streamed = True
            elif isinstance(item, ToolDone):
                note = f"tool {item.record.call.name} done"
                await updater.update_status(
                    TaskState.TASK_STATE_WORKING, updater.new_agent_message([Part(text=note)])
                )
            elif isinstance(item, Failed):
                error = item.error
                log.warning("run on session %s failed: %s", session.id, type(error).__name__)
                text = f"the run failed: {type(error).__name__}: {error}"
                await updater.failed(updater.new_agent_message([Part(text=text)]))
            elif isinstance(item, Finished):
                reply = item.result.reply
                if not streamed and reply:  # a reply that was not streamed (a terminal tool)
                    await updater.add_artifact(
                        [Part(text=reply)], artifact_id=artifact, name="answer"
                    )
                await updater.complete(updater.new_agent_message([Part(text=reply)]))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        """The SDK has cancelled `execute` (and so the run): say so."""
        updater = TaskUpdater(event_queue, context.task_id or "", context.context_id or "")
        await updater.cancel()


def _card(agent: AgentDefinition, url: str) -> AgentCard:
    description = agent.description or f"the agentframe agent {agent.name}"
    return AgentCard(
        name=agent.name,
        description=description,
        version="1.0.0",
        supported_interfaces=[
            AgentInterface(url=url, protocol_binding="JSONRPC", protocol_version="1.0")
        ],
        capabilities=AgentCapabilities(streaming=True),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[
            AgentSkill(id=agent.name, name=agent.name, description=description, tags=["agentframe"])
        ],
    )


def _replaying(body: bytes, receive: Receive) -> Callable[[], Awaitable[Message]]:
    """A receive that gives the body already read, then the connection's own messages."""
    given = False

    async def replay() -> Message:
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


@dataclass(slots=True)
class _Agent:
    card: AgentCard
    dispatcher: JsonRpcDispatcher


class A2A:
    """The A2A endpoints of every agent the server offers."""

    def __init__(self, service: Service, base_url: str) -> None:
        # The SDK logs request bodies and tasks (prompts, answers) at DEBUG: never, even -vv.
        logging.getLogger("a2a").setLevel(max(logging.WARNING, logging.getLogger("a2a").level))
        tasks = _Tasks(service.stack.store)
        self.agents: dict[str, _Agent] = {}
        for name, agent in service.agents.items():
            card = _card(agent, f"{base_url}/a2a/{name}")
            handler = DefaultRequestHandler(_Executor(service, agent), tasks, card)
            dispatcher = JsonRpcDispatcher(
                handler,
                _Caller(),
                enable_v0_3_compat=True,
                # streams cut at once on SIGTERM otherwise; within uvicorn's own bound
                shutdown_grace_period=max(0.0, service.gate.settings.drain_seconds - 1),
            )
            self.agents[name] = _Agent(card, dispatcher)

    def _agent(self, service: Service, request: Request) -> _Agent:
        name = request.path_params["agent"]
        service.agent(name, "agent")  # the 404 naming the agents
        return self.agents[name]

    async def card(self, service: Service, request: Request) -> Response:
        service.gate.admit(request)
        return JSONResponse(agent_card_to_dict(self._agent(service, request).card))

    async def rpc(self, service: Service, request: Request) -> Response:
        owner = service.gate.admit(request)
        agent = self._agent(service, request)
        body = await service.gate.raw_body(request)
        request.scope[_OWNER] = owner
        replayed = Request(request.scope, _replaying(body, request.receive))
        response: Any = await agent.dispatcher.handle_requests(replayed)
        return response  # type: ignore[no-any-return]
