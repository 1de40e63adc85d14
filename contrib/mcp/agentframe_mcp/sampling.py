"""`sampling/createMessage`: a server asks the client's model for a completion.

Answered by the model `sampling.adapter` configures (a part block like the stack's own
`adapter:`, built once per toolset), else by the stack's adapter (`ctx.stack.adapter`) of the
run whose tool call is in flight, under a policy: `auto` answers, `ask` asks the person first
(`ctx.ask`), `deny` refuses. Each request's `maxTokens` is cut to `max_tokens`, and requests
are counted per tool call and per session: past either bound the server gets an error naming
it (`SamplingLimitError`), so a server looping on sampling cannot spend the run's tokens.
"""

from __future__ import annotations

import logging
from typing import Annotated, Literal

from mcp import types
from pydantic import BaseModel, ConfigDict, Field

from agentframe_core import (
    AdapterPart,
    AgentframeError,
    CompletionRequest,
    LLMAdapter,
    Message,
    Question,
    RunContext,
    redact_text,
)

__all__ = ["SamplingLimitError", "SamplingOptions", "answer_sampling"]

log = logging.getLogger("agentframe.mcp")

#: The text of a sampling request's messages, all together, at most this many characters.
MAX_PROMPT_CHARS = 256 * 1024


class SamplingLimitError(AgentframeError):
    """A server asked for more sampling than the policy allows (per call or per session)."""


class SamplingOptions(BaseModel):
    """`sampling: {policy, max_tokens, max_requests, max_session_requests, adapter}`"""

    model_config = ConfigDict(extra="forbid", frozen=True)

    policy: Literal["auto", "ask", "deny"] = Field(
        default="ask", description="auto: answer; ask: ask the person first; deny: refuse."
    )
    max_tokens: Annotated[int, Field(gt=0, le=65536)] = Field(
        default=1024, description="A request's maxTokens is cut to this."
    )
    max_requests: Annotated[int, Field(ge=0, le=1000)] = Field(
        default=5, description="Sampling requests one tool call may make."
    )
    max_session_requests: Annotated[int, Field(ge=0, le=10000)] = Field(
        default=20, description="Sampling requests all the calls of one session may make."
    )
    adapter: AdapterPart | None = Field(
        default=None,
        description="The model that answers (an adapter block, as `adapter:` at the top); "
        "none: the stack's own.",
    )


def _error(message: str) -> types.ErrorData:
    return types.ErrorData(code=types.INVALID_REQUEST, message=message)


def _text(content: object) -> str:
    """The text of one sampling message's content (a block or a list of blocks); other
    blocks are named, not sent (the stack's model reads text)."""
    blocks = content if isinstance(content, list) else [content]
    parts = []
    for block in blocks:
        if isinstance(block, types.TextContent):
            parts.append(block.text)
        else:
            parts.append(f"[{getattr(block, 'type', 'content')} omitted]")
    return "\n".join(parts)


class SamplingCounter:
    """How many sampling requests one tool call and one session made."""

    def __init__(self) -> None:
        self.per_call: dict[int, int] = {}
        self.per_session: dict[str, int] = {}

    def take(self, call: int, session: str, options: SamplingOptions) -> None:
        done_call = self.per_call.get(call, 0)
        done_session = self.per_session.get(session, 0)
        if done_call >= options.max_requests:
            raise SamplingLimitError(
                f"sampling refused: this tool call already made {done_call} sampling "
                f"requests (sampling.max_requests: {options.max_requests})"
            )
        if done_session >= options.max_session_requests:
            raise SamplingLimitError(
                f"sampling refused: this session already made {done_session} sampling "
                f"requests (sampling.max_session_requests: {options.max_session_requests})"
            )
        self.per_call[call] = done_call + 1
        self.per_session[session] = done_session + 1

    def end_call(self, call: int) -> None:
        self.per_call.pop(call, None)


async def answer_sampling(
    server: str,
    options: SamplingOptions,
    counter: SamplingCounter,
    call: tuple[int, RunContext] | None,
    params: types.CreateMessageRequestParams,
    adapter: LLMAdapter | None = None,
) -> types.CreateMessageResult | types.ErrorData:
    """The reply to one `sampling/createMessage`, or an error the server reads. `adapter`:
    the one `sampling.adapter` built (None: the stack's)."""
    if options.policy == "deny":
        log.info("MCP server %r asked for sampling: refused (sampling.policy: deny)", server)
        return _error("sampling is disabled by this client's policy (sampling.policy: deny)")
    if call is None:
        return _error("sampling is answered only during a tool call of this server")
    call_id, ctx = call
    try:
        counter.take(call_id, ctx.session_id, options)
    except SamplingLimitError as err:
        log.warning("MCP server %r: %s", server, err)
        return _error(str(err))
    messages: list[Message] = []
    if params.system_prompt:
        messages.append(Message("system", params.system_prompt))
    for message in params.messages:
        messages.append(Message(message.role, _text(message.content)))
    size = sum(len(m.content) for m in messages)
    if size > MAX_PROMPT_CHARS:
        return _error(
            f"sampling refused: the messages hold {size} characters, more than {MAX_PROMPT_CHARS}"
        )
    if options.policy == "ask":
        preview = redact_text(messages[-1].content[:500]) if messages else ""
        answer = await ctx.ask(
            Question(
                f"MCP server {server!r} asks the model ({len(messages)} messages, at most "
                f"{min(params.max_tokens, options.max_tokens)} tokens). Last message:\n"
                f"{preview}\nAllow?",
                source=f"mcp:{server}",
            )
        )
        if answer.action != "accept":
            log.info("MCP server %r: sampling %sd (%s)", server, answer.action, answer.reason)
            return _error(f"the user did not allow sampling ({answer.action})")
    completion = await (adapter or ctx.stack.adapter).complete(
        CompletionRequest(
            messages=messages,
            max_tokens=min(params.max_tokens, options.max_tokens),
            temperature=params.temperature,
            metadata={"mcp_sampling": server},
        )
    )
    ctx.emit(
        "mcp_sampling",
        {"server": server, "usage": completion.usage.to_dict(), "model": completion.model},
    )
    return types.CreateMessageResult(
        role="assistant",
        content=types.TextContent(type="text", text=completion.content),
        model=completion.model or "agentframe",
        stop_reason=_stop_reason(completion.finish_reason),
    )


def _stop_reason(finish: str | None) -> str | None:
    return {"stop": "endTurn", "length": "maxTokens"}.get(finish or "", finish)
