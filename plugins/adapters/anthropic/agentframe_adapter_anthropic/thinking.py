"""Thinking blocks, kept from a reply and given back with the turn they belong to.

The API needs the thinking blocks of an assistant turn that called tools sent back unchanged
(signature included) when the tool results follow; older turns' thinking it ignores. The
kernel's `Message` has no field for them, so the adapter keeps them itself, keyed by the
turn's first `tool_use` id (unique per call), for as long as a run needs them: the last
`MAX_TURNS` turns of this adapter instance.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from .wire import Blocks

__all__ = ["MAX_TURNS", "ThinkingMemory"]

MAX_TURNS = 256


class ThinkingMemory:
    def __init__(self, size: int = MAX_TURNS) -> None:
        self._size = size
        self._turns: OrderedDict[str, Blocks] = OrderedDict()
        self._lock = threading.Lock()  # one adapter may serve several event loops

    def keep(self, first_call_id: str, blocks: Blocks) -> None:
        if not blocks:
            return
        with self._lock:
            self._turns[first_call_id] = blocks
            self._turns.move_to_end(first_call_id)
            while len(self._turns) > self._size:
                self._turns.popitem(last=False)

    def blocks_for(self, first_call_id: str) -> Blocks:
        """The turn's blocks (copies: the request body may be marked for caching)."""
        with self._lock:
            return [dict(block) for block in self._turns.get(first_call_id, ())]
