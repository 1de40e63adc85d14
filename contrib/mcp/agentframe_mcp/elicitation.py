"""`elicitation/create`: a server asks the person a question, through the kernel's
Questions contract (`ctx.ask`).

Form mode: the requested schema must be MCP's subset (an object of string, number, integer
and boolean properties, strings maybe with `enum`, `format`, length bounds) and small (a
huge schema is refused with `ElicitationSchemaError`, the person never sees it); the
person's answer gets the schema's defaults for the fields left out and is validated before
it goes back. URL mode: the URL is shown, never fetched. The `elicitation` option decides who
answers: `ask` (the person; declined when nobody can be asked), `defaults` (nobody is asked:
the schema's own defaults are accepted when they fill every required field, else declined),
`decline` or `cancel` (never ask). Every answer nobody gave is logged.
"""

from __future__ import annotations

import json
import logging
from typing import Any, Literal

from jsonschema import Draft202012Validator
from mcp import types

from agentframe_core import AgentframeError, Answer, Question, RunContext, redact_url

__all__ = [
    "MAX_SCHEMA_BYTES",
    "ElicitationPolicy",
    "ElicitationSchemaError",
    "answer_elicitation",
    "check_schema",
    "with_defaults",
]

log = logging.getLogger("agentframe.mcp")

ElicitationPolicy = Literal["ask", "defaults", "decline", "cancel"]

#: A requested schema larger than this (as JSON) is refused.
MAX_SCHEMA_BYTES = 16 * 1024
#: Characters of a server's message shown (the kernel's Question takes at most 4000).
MAX_MESSAGE = 3500


class ElicitationSchemaError(AgentframeError):
    """A requested schema outside MCP elicitation's subset or its bounds."""


def check_schema(server: str, schema: Any, *, asked: bool = True) -> dict[str, Any]:
    """The schema, if it is small and an object, and (when a person is `asked`) in the
    subset every answerer can render (the kernel's `Question` decides that); else the error,
    naming the server and the field."""
    where = f"MCP server {server!r}: elicitation schema"
    try:
        size = len(json.dumps(schema))
    except (TypeError, ValueError):
        raise ElicitationSchemaError(f"{where} is not JSON") from None
    if size > MAX_SCHEMA_BYTES:
        raise ElicitationSchemaError(
            f"{where} is {size} bytes, more than {MAX_SCHEMA_BYTES // 1024} KiB: refused"
        )
    if not isinstance(schema, dict) or schema.get("type") != "object":
        raise ElicitationSchemaError(f'{where} is not {{"type": "object"}}')
    if asked:
        try:
            Question("", schema)
        except ValueError as err:
            raise ElicitationSchemaError(f"{where}: {err}") from None
    return schema


def with_defaults(schema: dict[str, Any], content: dict[str, Any] | None) -> dict[str, Any]:
    """The answer with each left-out field's default (SEP-1034)."""
    filled = dict(content or {})
    for name, field in schema.get("properties", {}).items():
        if name not in filled and "default" in field:
            filled[name] = field["default"]
    return filled


def _problem(schema: dict[str, Any], content: dict[str, Any]) -> str | None:
    shape = {k: v for k, v in schema.items() if k in ("type", "properties", "required")}
    error = next(iter(Draft202012Validator(shape).iter_errors(content)), None)
    if error is None:
        return None
    field = ".".join(map(str, error.absolute_path)) or "answer"
    return f"{field}: {error.message[:200]}"


def _unanswered(server: str, action: Literal["decline", "cancel"], why: str) -> types.ElicitResult:
    log.warning("MCP server %r asked a question: %sd (%s)", server, action, why)
    return types.ElicitResult(action=action)


async def answer_elicitation(
    server: str,
    policy: ElicitationPolicy,
    ctx: RunContext | None,
    params: types.ElicitRequestParams,
) -> types.ElicitResult | types.ErrorData:
    """The person's answer to one `elicitation/create` (or the policy's)."""
    source = f"mcp:{server}"
    if policy in ("decline", "cancel"):
        return _unanswered(server, policy, f"elicitation: {policy}")
    message = params.message[:MAX_MESSAGE]
    if policy == "defaults" or ctx is None:
        if policy == "defaults" and isinstance(params, types.ElicitRequestFormParams):
            try:
                schema = check_schema(server, params.requested_schema, asked=False)
            except ElicitationSchemaError as err:
                log.warning("%s", err)
                return types.ErrorData(code=types.INVALID_PARAMS, message=str(err))
            content = with_defaults(schema, {})
            if _problem(schema, content) is None:
                log.info("MCP server %r asked a question: its defaults accepted", server)
                return types.ElicitResult(action="accept", content=content)
        why = "elicitation: defaults" if policy == "defaults" else "no tool call is running"
        return _unanswered(server, "decline", why)
    if isinstance(params, types.ElicitRequestURLParams):
        # Shown, never fetched: the person opens it or not.
        answer = await ctx.ask(
            Question(
                f"MCP server {server!r}: {message}\nIt asks you to open: "
                f"{redact_url(params.url[:2000])}\nDone?",
                source=source,
            )
        )
        return _result(server, answer, None)
    try:
        schema = check_schema(server, params.requested_schema)
    except ElicitationSchemaError as err:
        log.warning("%s", err)
        return types.ErrorData(code=types.INVALID_PARAMS, message=str(err))
    answer = await ctx.ask(Question(f"MCP server {server!r}: {message}", schema, source))
    return _result(server, answer, schema)


def _result(server: str, answer: Answer, schema: dict[str, Any] | None) -> types.ElicitResult:
    if answer.action != "accept":
        if answer.reason:
            log.warning(
                "MCP server %r asked a question: %sd (%s)", server, answer.action, answer.reason
            )
        return types.ElicitResult(action=answer.action)
    if schema is None:
        return types.ElicitResult(action="accept")
    content = with_defaults(schema, answer.content)
    problem = _problem(schema, content)
    if problem is not None:
        return _unanswered(server, "cancel", f"the answer does not fit the schema: {problem}")
    return types.ElicitResult(action="accept", content=content)
