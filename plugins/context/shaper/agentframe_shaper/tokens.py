"""Counting tokens: a pluggable `TokenEstimator`, and the budget a prompt may use."""

from __future__ import annotations

import importlib
import logging
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

__all__ = ["AdapterEstimator", "CharsEstimator", "TiktokenEstimator", "TokenEstimator", "budget"]

log = logging.getLogger("agentframe.shaper")

#: Tokens the chat template adds around one message (role markers, separators).
MESSAGE_OVERHEAD = 8


@runtime_checkable
class TokenEstimator(Protocol):
    async def count(self, texts: Sequence[str]) -> list[int]:
        """The number of tokens of each text, never less than the model would see."""
        ...


class CharsEstimator:
    """Four characters a token, rounded up: conservative for English text and code."""

    async def count(self, texts: Sequence[str]) -> list[int]:
        return [chars_tokens(text) for text in texts]


def chars_tokens(text: str) -> int:
    return (len(text) + 3) // 4


class AdapterEstimator:
    """The adapter's exact tokenizer (`count_tokens(texts)`, e.g. llama-server's /tokenize),
    falling back to chars/4 when it has none or it fails."""

    def __init__(self, adapter: Any) -> None:
        self._count = getattr(adapter, "count_tokens", None)
        self._chars = CharsEstimator()
        self._warned = False

    async def count(self, texts: Sequence[str]) -> list[int]:
        if self._count is not None and texts:
            try:
                counts = await self._count(list(texts))
                if len(counts) == len(texts):
                    return [int(n) for n in counts]
            except Exception as err:  # a tokenizer outage must not stop the session
                if not self._warned:
                    log.warning("token counting by the adapter failed (%s); using chars/4", err)
                    self._warned = True
        return await self._chars.count(texts)


class TiktokenEstimator:
    """OpenAI's encodings, through a tiktoken-compatible library. `bpe-openai` ships them
    (works offline); `tiktoken` itself downloads them on first use, so it is the fallback."""

    def __init__(self, model: str) -> None:
        self._encoding = _encoding(model)

    async def count(self, texts: Sequence[str]) -> list[int]:
        encode = self._encoding.encode
        return [len(encode(text, disallowed_special=())) for text in texts]


def _encoding(model: str) -> Any:
    for name in ("bpe_openai", "tiktoken"):
        try:
            library = importlib.import_module(name)
            break
        except ImportError:
            continue
    else:
        raise ValueError(
            "the tiktoken estimator needs bpe-openai (or tiktoken): "
            "pip install 'agentframe-shaper[openai]'"
        )
    try:
        return library.encoding_for_model(model)
    except Exception as err:  # each library has its own error for an unknown model
        raise ValueError(f"no OpenAI encoding is known for model {model!r}: {err}") from None


def budget(context_tokens: int, reserve: int) -> int:
    """Tokens a prompt may use in a window of `context_tokens`, leaving `reserve` for the
    reply (at least a quarter of the window is always left to the prompt)."""
    return max(context_tokens - reserve, context_tokens // 4, 1)
