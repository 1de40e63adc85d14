"""What llama-server says about itself: the context of one slot (`/props`), and exact token
counts (`/tokenize`), for context builders that fit a session into the window."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import httpx

__all__ = ["count_tokens", "slot_context"]

#: Texts tokenized at once (each is one request to the server).
CONCURRENCY = 4
#: Longest text sent to /tokenize; longer ones are counted by parts.
MAX_CHARS = 200_000


async def slot_context(client: httpx.AsyncClient, root: str) -> int | None:
    """The tokens one request may use (`default_generation_settings.n_ctx` of `/props`: the
    slot's context, already divided among parallel slots), or None if the server won't say."""
    try:
        response = await client.get(f"{root}/props", timeout=10)
        data: Any = response.json() if response.status_code == 200 else {}
    except (httpx.HTTPError, ValueError):
        return None
    settings = data.get("default_generation_settings") if isinstance(data, dict) else None
    n_ctx = settings.get("n_ctx") if isinstance(settings, dict) else None
    return n_ctx if isinstance(n_ctx, int) and n_ctx > 0 else None


async def count_tokens(client: httpx.AsyncClient, root: str, texts: Sequence[str]) -> list[int]:
    """The model's own token count of each text (`/tokenize`), a few requests at a time."""
    gate = asyncio.Semaphore(CONCURRENCY)

    async def one(text: str) -> int:
        total = 0
        for begin in range(0, max(len(text), 1), MAX_CHARS):
            async with gate:
                response = await client.post(
                    f"{root}/tokenize", json={"content": text[begin : begin + MAX_CHARS]}
                )
            response.raise_for_status()
            tokens = response.json().get("tokens")
            if not isinstance(tokens, list):
                raise ValueError(f"{root}/tokenize answered without a token list")
            total += len(tokens)
        return total

    return list(await asyncio.gather(*(one(text) for text in texts)))
