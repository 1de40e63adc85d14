"""The verbatim ContextBuilder (`use: verbatim`): every visible entry, rendered as is."""

from __future__ import annotations

from collections import OrderedDict

from ..contract.model import Message
from ..contract.protocols import RunContext
from ..engine.render import Renderer

__all__ = ["VerbatimBuilder"]


class VerbatimBuilder:
    """Renders the store's context with `render.Renderer`, remembering the rendering of the
    last few sessions so that a turn pays only for entries added since the previous one."""

    def __init__(self, cache_sessions: int = 64) -> None:
        self._renderers: OrderedDict[str, Renderer] = OrderedDict()
        self._cache_sessions = cache_sessions

    async def build(self, ctx: RunContext, system: str) -> list[Message]:
        entries = await ctx.stack.store.context(ctx.session_id)
        limit = ctx.stack.limits.inline_result_chars
        renderer = self._renderers.pop(ctx.session_id, None)
        if renderer is None or renderer.inline_chars != limit or not renderer.extends(entries):
            renderer = Renderer(limit)
        renderer.feed(entries[len(renderer.entries) :])
        self._renderers[ctx.session_id] = renderer
        if len(self._renderers) > self._cache_sessions:
            self._renderers.popitem(last=False)
        head = [Message("system", system)] if system else []
        return head + renderer.view()
