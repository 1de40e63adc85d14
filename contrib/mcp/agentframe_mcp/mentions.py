"""`@server:uri` in a prompt: the resource `uri` of the MCP server `server`, read and given to
the model beside the prompt (Claude Code's syntax: `Compare @docs:file://api/auth with ...`).

A mention counts only when `server` is a configured server of the run's stack and `uri` has a
scheme (`name://...`): an e-mail address or `@someone:` in prose is left alone. The server is
started if it is not running yet. At most MAX_MENTIONS resources a prompt, each cut to the
toolset's `max_resource_bytes`, the whole context to MAX_CONTEXT_CHARS; a resource that cannot
be read is named with the reason, in the context (the model and the person see why), never an
error of the run. Trailing punctuation (`@docs:file://a.md.`) is not part of the uri.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

from agentframe_core import RunContext

from .connection import State
from .resources import call_meta_tool
from .toolset import McpToolset

__all__ = ["MAX_CONTEXT_CHARS", "MAX_MENTIONS", "Mention", "find_mentions", "read_mentions"]

log = logging.getLogger("agentframe.mcp")

#: Resources one prompt may name; more are left out, saying so.
MAX_MENTIONS = 10
#: Characters of resource text one prompt may add, all mentions together.
MAX_CONTEXT_CHARS = 400_000

_MENTION = re.compile(r"(?<![\w@])@([A-Za-z0-9_.-]+):([A-Za-z][A-Za-z0-9+.-]*://\S+)")
_TRAILING = ".,;:!?)]}>'\""


@dataclass(frozen=True, slots=True)
class Mention:
    server: str
    uri: str

    def __str__(self) -> str:
        return f"@{self.server}:{self.uri}"


def find_mentions(prompt: str) -> list[Mention]:
    """Every `@server:scheme://...` in `prompt`, in order, each once."""
    found: list[Mention] = []
    for match in _MENTION.finditer(prompt):
        mention = Mention(match.group(1), match.group(2).rstrip(_TRAILING))
        if mention not in found:
            found.append(mention)
    return found


async def read_mentions(ctx: RunContext, prompt: str) -> str | None:
    """The context for the resources `prompt` mentions on the stack's MCP servers; None when
    it mentions none."""
    toolsets = [t for t in ctx.stack.tools if isinstance(t, McpToolset)]
    for toolset in toolsets:  # the project's servers wait for the run's config file
        toolset.learn_config(ctx)
    servers = {name: t for t in toolsets for name in t.connections}
    mentions = [m for m in find_mentions(prompt) if m.server in servers]
    if not mentions:
        return None
    parts: list[str] = []
    left = MAX_CONTEXT_CHARS
    for mention in mentions[:MAX_MENTIONS]:
        text = await _read(servers[mention.server], mention, ctx)
        if len(text) > left:
            text = f"[{mention}: left out, the resources are over {MAX_CONTEXT_CHARS} characters]"
        left -= len(text)
        parts.append(text)
    if len(mentions) > MAX_MENTIONS:
        parts.append(
            f"[{len(mentions) - MAX_MENTIONS} more mentions left out: at most {MAX_MENTIONS}]"
        )
    return "Resources the prompt mentions:\n\n" + "\n\n".join(parts)


async def _read(toolset: McpToolset, mention: Mention, ctx: RunContext) -> str:
    connection = await toolset.started(mention.server, ctx)
    if connection.state is not State.READY:
        reason = connection.status().get("error") or connection.state.value
        log.warning("%s: MCP server %s is not running: %s", mention, mention.server, reason)
        return f"[{mention}: not read, the MCP server is not running: {reason}]"
    if "resources" not in connection.offers:
        return f"[{mention}: not read, MCP server {mention.server!r} offers no resources]"
    result = await call_meta_tool(
        "read_mcp_resource", {"uri": mention.uri}, connection, toolset.options.max_resource_bytes
    )
    if result.is_error:
        log.warning("%s: %s", mention, result.content)
        return f"[{mention}: not read: {result.content}]"
    ctx.emit(
        "mcp_resource", {"server": mention.server, "uri": mention.uri, "chars": len(result.content)}
    )
    return f"[{mention}]\n{result.content}"
