"""The Starlette application: routes, errors as each API's error object, CORS when
configured, and the stack closed when the server stops."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route
from starlette.types import Receive, Scope, Send

from agentframe_core import AgentDefinition, Config, Stack

from . import tracecontext
from .a2a import A2A
from .agui import agui_run
from .chat import chat_completions
from .conversations import Conversations
from .errors import ApiError
from .extensions import ApiCall, ApiRoute
from .gate import Gate
from .history import child_history, session_history
from .keys import Keys
from .questions import answer_question
from .remembered import Remembered
from .responses import create_response, delete_response, get_response
from .service import Service
from .sessions import delete_session, list_sessions, show_session
from .settings import ServeSettings
from .stackinfo import run_doctor, show_stack
from .wire import EventStream

__all__ = ["ROUTES_GROUP", "build_app"]

log = logging.getLogger("agentframe.serve")

#: The entry-point group of packages that add routes (the web UI, agentframe-kg's `/v1/kg`,
#: agentframe-otel's `/v1/traces`): each entry point is a callable taking the `ServeSettings`
#: and returning Starlette routes or `ApiRoute`s, mounted after the server's own (which they
#: cannot shadow).
ROUTES_GROUP = "agentframe_serve.routes"

#: Routes first-party packages add, answered while none is installed with a 404 that says
#: how to install it.
OPTIONAL_ROUTES = {
    "/v1/traces": "tracing is not installed: pip install agentframe-otel (in this repository: "
    "pip install -e contrib/otel), turn it on in agentframe.yaml as its README says, and "
    "restart the server",
    "/v1/kg": "the knowledge graph is not installed: pip install agentframe-kg (in this "
    "repository: pip install -e contrib/kg) and restart the server",
}

#: How long cancelled requests may take to unwind on shutdown, after the drain bound.
UNWIND_SECONDS = 5.0

Handler = Callable[[Service, Request], Awaitable[Response | EventStream]]


class _Answer:
    """An endpoint's answer as ASGI: its response, or its error as an error object."""

    def __init__(self, service: Service, handler: Handler, active: set[asyncio.Task[Any]]) -> None:
        self.service, self.handler, self.active = service, handler, active

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        task = asyncio.current_task()
        assert task is not None
        self.active.add(task)
        try:
            with tracecontext.continued(scope):
                await self._answer(scope, receive, send)
        finally:
            self.active.discard(task)

    async def _answer(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive, send)
        response: Response | EventStream
        try:
            response = await self.handler(self.service, request)
        except ApiError as err:
            response = JSONResponse(err.body(), status_code=err.status)
        except Exception as err:  # a bug or a broken part: the client hears, no traceback
            log.error("%s %s failed: %s", request.method, scope["path"], type(err).__name__)
            response = JSONResponse(
                ApiError(500, f"internal error: {type(err).__name__}").body(), status_code=500
            )
        try:
            await response(scope, receive, send)
        except asyncio.CancelledError:  # SIGTERM's drain bound ran out: the run is cancelled
            log.warning("%s %s cancelled: the server is stopping", request.method, scope["path"])


async def _models(service: Service, request: Request) -> Response:
    service.gate.admit(request)
    return JSONResponse({"object": "list", "data": [_model(a) for a in service.agents.values()]})


async def _model_one(service: Service, request: Request) -> Response:
    service.gate.admit(request)
    return JSONResponse(_model(service.agent(request.path_params["model"])))


def _model(agent: AgentDefinition) -> dict[str, Any]:
    return {
        "id": agent.name,
        "object": "model",
        "created": 0,
        "owned_by": "agentframe",
        "description": agent.description,
    }


async def _healthz(service: Service, request: Request) -> Response:
    return JSONResponse({"status": "ok"})


async def _readyz(service: Service, request: Request) -> Response:
    ready = bool(service.agents)
    status = {"status": "ready" if ready else "no agents", "agents": len(service.agents)}
    return JSONResponse(status, status_code=200 if ready else 503)


def _extensions(settings: ServeSettings) -> list[BaseRoute | ApiRoute]:
    """The routes of installed packages (`ROUTES_GROUP`); one that fails to load is logged
    and left out, the server starts without it."""
    routes: list[BaseRoute | ApiRoute] = []
    for point in entry_points(group=ROUTES_GROUP):
        try:
            found: Sequence[BaseRoute | ApiRoute] = point.load()(settings)
        except Exception as err:
            log.error("routes %r failed to load: %s: %s", point.name, type(err).__name__, err)
            continue
        routes.extend(found)
    return routes


def _api_handler(route: ApiRoute) -> Handler:
    """An `ApiRoute`'s endpoint as a handler of the server's own: the caller admitted first."""

    async def handler(service: Service, request: Request) -> Response:
        owner = service.gate.admit(request)
        settings = service.gate.settings
        return await route.endpoint(ApiCall(request, owner, settings, service.cwd, service.config))

    return handler


def _not_installed(hint: str) -> Handler:
    async def handler(service: Service, request: Request) -> Response:
        service.gate.admit(request)
        raise ApiError(404, hint)

    return handler


def build_app(
    stack: Stack,
    agents: list[AgentDefinition],
    cwd: Path,
    settings: ServeSettings,
    keys: Keys,
    *,
    loopback: bool,
    base_url: str,
    config: Config | None = None,
) -> Starlette:
    """The app; `base_url` is where clients reach it (A2A agent cards name it); `config`, the
    one the stack was built from, is what `/v1/stack` shows."""
    service = Service(
        stack=stack,
        agents={a.name: a for a in agents},
        cwd=cwd,
        gate=Gate(keys, settings, loopback),
        conversations=Conversations(stack.store),
        responses=Remembered(stack.store),
        config=config,
    )

    #: Requests being answered: on shutdown, those uvicorn cancelled (past the drain bound)
    #: finish unwinding, their 'interrupted' results stored, before the store closes.
    active: set[asyncio.Task[Any]] = set()

    a2a = A2A(service, settings.public_url or base_url)

    def route(path: str, handler: Handler, *methods: str) -> Route:
        return Route(path, _Answer(service, handler, active), methods=list(methods))

    added = [
        r if isinstance(r, BaseRoute) else route(r.path, _api_handler(r), *r.methods)
        for r in _extensions(settings)
    ]
    missing = [route(path, _not_installed(hint)) for path, hint in OPTIONAL_ROUTES.items()]

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            if active:
                await asyncio.wait(set(active), timeout=UNWIND_SECONDS)
            await stack.aclose()

    middleware = []
    if settings.cors_origins:
        middleware.append(
            Middleware(
                CORSMiddleware,
                allow_origins=settings.cors_origins,
                allow_methods=["GET", "POST", "DELETE"],
                allow_headers=["authorization", "content-type", "x-api-key", "x-session-id"],
                expose_headers=["x-session-id"],
            )
        )
    return Starlette(
        routes=[
            route("/healthz", _healthz, "GET"),
            route("/readyz", _readyz, "GET"),
            route("/v1/models", _models, "GET"),
            route("/v1/models/{model}", _model_one, "GET"),
            route("/v1/chat/completions", chat_completions, "POST"),
            route("/v1/responses", create_response, "POST"),
            route("/v1/responses/{response_id}", get_response, "GET"),
            route("/v1/responses/{response_id}", delete_response, "DELETE"),
            route("/ag-ui/{agent}", agui_run, "POST"),
            route("/a2a/{agent}/.well-known/agent-card.json", a2a.card, "GET"),
            route("/a2a/{agent}", a2a.rpc, "POST"),
            route("/v1/sessions", list_sessions, "GET"),
            route("/v1/sessions/{session_id}", show_session, "GET"),
            route("/v1/sessions/{session_id}", delete_session, "DELETE"),
            route("/v1/sessions/{session_id}/history", session_history, "GET"),
            route("/v1/sessions/{session_id}/children/{child_id}", child_history, "GET"),
            route("/v1/stack", show_stack, "GET"),
            route("/v1/doctor", run_doctor, "POST"),
            route("/v1/questions/{question_id}", answer_question, "POST"),
            *added,
            *missing,
        ],
        middleware=middleware,
        lifespan=lifespan,
    )
