"""An agent's own questions (`ctx.ask`, e.g. an MCP server's elicitation or a permission
rule's `ask`), forwarded by `mcp serve` to its client as `elicitation/create`: the person
answering is the client's user. A client that declared no (form) elicitation capability
cannot be asked: its questions are declined at once, saying so. The answer is checked against
the question's form (a reply that does not fit is a cancel with the reason), and a person
gets `ASK_TIMEOUT` seconds."""

from __future__ import annotations

import asyncio
import logging

import jsonschema
from mcp import types
from mcp.server.session import ServerSession

from agentframe_core import Answer, Question

__all__ = ["ASK_TIMEOUT", "QuestionAsker"]

log = logging.getLogger("agentframe.mcp.serve")

ASK_TIMEOUT = 600.0
CANNOT_ASK = (
    "the MCP client of `agentframe mcp serve` cannot be asked: it declared no form "
    "elicitation capability"
)
_CONFIRMATION: dict[str, object] = {"type": "object", "properties": {}}


class QuestionAsker:
    """The run's `on_question` for one `tools/call`: asks on that call's stream."""

    def __init__(self, session: ServerSession, request_id: types.RequestId | None) -> None:
        self.session, self.request_id = session, request_id

    @property
    def can_ask(self) -> bool:
        capabilities = self.session.client_capabilities
        elicitation = capabilities.elicitation if capabilities else None
        # `elicitation: {}` means forms; a client that lists only `url` cannot show one.
        return elicitation is not None and (elicitation.form is not None or elicitation.url is None)

    async def __call__(self, question: Question) -> Answer:
        if not self.can_ask:
            return Answer("decline", reason=CANNOT_ASK)
        message = f"[{question.source}] {question.message}" if question.source else question.message
        schema = question.schema if question.schema is not None else _CONFIRMATION
        try:
            async with asyncio.timeout(ASK_TIMEOUT):
                result = await self.session.elicit_form(
                    message, dict(schema), related_request_id=self.request_id
                )
        except TimeoutError:
            return Answer("cancel", reason=f"the client did not answer within {ASK_TIMEOUT:.0f} s")
        if result.action != "accept":
            return Answer(result.action)
        content = dict(result.content or {})
        try:
            jsonschema.validate(content, dict(schema))
        except jsonschema.ValidationError as err:
            log.warning("an answer that does not fit the question's form: %s", err.message)
            return Answer("cancel", reason=f"the answer does not fit the form: {err.message}")
        return Answer("accept", content)
