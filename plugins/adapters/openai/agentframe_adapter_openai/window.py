"""The context window an OpenAI-compatible server reports, where it reports one.

llama.cpp's server answers `/props` (`default_generation_settings.n_ctx`: one slot's
context); vLLM lists `max_model_len` under `/models`; llama.cpp's `/models` has the trained
context in `meta.n_ctx_train`, others use `context_length` or `context_window`. OpenAI's own
API says nothing: configure `context_window` there.
"""

from __future__ import annotations

from typing import Any

import httpx

__all__ = ["served_context"]

_MODEL_KEYS = ("max_model_len", "context_length", "context_window")


async def served_context(client: httpx.AsyncClient, base_url: str, model: str | None) -> int | None:
    root = base_url.removesuffix("/v1")
    props = await _get(client, f"{root}/props")
    if isinstance(props, dict):
        settings = props.get("default_generation_settings")
        n_ctx = _window(settings.get("n_ctx") if isinstance(settings, dict) else None)
        if n_ctx is not None:
            return n_ctx
    listing = await _get(client, f"{base_url}/models")
    items = listing.get("data") if isinstance(listing, dict) else None
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict) or (model and item.get("id") != model):
            continue
        meta = item.get("meta")
        trained = meta.get("n_ctx_train") if isinstance(meta, dict) else None
        for value in (*(item.get(k) for k in _MODEL_KEYS), trained):
            window = _window(value)
            if window is not None:
                return window
    return None


async def _get(client: httpx.AsyncClient, url: str) -> Any:
    try:
        response = await client.get(url, timeout=10)
        return response.json() if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError):
        return None


def _window(value: Any) -> int | None:
    """`value` if it is a plausible window size (a server's answer is not trusted blindly)."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 < value < 100_000_000:
        return value
    return None
