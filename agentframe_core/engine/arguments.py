"""Tool-call arguments as backends send them: an object, or a JSON string holding one."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["decode_arguments"]


def decode_arguments(raw: Any) -> dict[str, Any]:
    """The arguments as a dict. `None` and an empty or blank string are no arguments; a string
    must be the JSON text of an object. Anything else raises ValueError saying what it was."""
    if isinstance(raw, dict):
        return raw
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return {}
    if not isinstance(raw, str):
        raise ValueError(f"arguments must be a JSON object, not {type(raw).__name__}")
    try:
        value = json.loads(raw)
    except ValueError as err:
        raise ValueError(f"arguments are not valid JSON ({err}): {raw[:80]!r}") from err
    if not isinstance(value, dict):
        raise ValueError(f"arguments must be a JSON object, not {type(value).__name__}")
    return value
