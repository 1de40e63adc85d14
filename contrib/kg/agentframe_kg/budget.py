"""Reply schemas fitted to a token budget: list lengths (`maxItems`) and string sizes
(`maxLength`, or the last `{m,n}` of a `pattern`) scaled down until the longest reply the
schema allows fits the call's `max_tokens`. A schema-constrained model (llama-server turns the
schema into a grammar) must then close its JSON before the limit instead of being cut inside
a string.

The size of a reply is an estimate, not a tokenizer's count: string content at
`CHARS_PER_TOKEN` characters a token (English is about 4, digits and other scripts cost more),
every quote, brace, comma and colon a token, and one more for the whitespace the grammar
allows between them. A reply cut at the limit anyway is asked again once with the bounds
fitted to half the budget (see asking)."""

from __future__ import annotations

import copy
import json
import math
import re
from typing import Any

__all__ = ["CHARS_PER_TOKEN", "fit_schema", "reply_tokens"]

CHARS_PER_TOKEN = 3
#: Share of max_tokens the longest reply may take (the rest: the estimate's error).
_SHARE = 0.8
#: Bounds are never scaled below these (nor below the schema's own minimum).
_MIN_LENGTH = 32
_TAIL = re.compile(r"\{(\d+),(\d+)\}\$$")


def _text_tokens(chars: int) -> int:
    return math.ceil(chars / CHARS_PER_TOKEN)


def _pattern_length(pattern: str) -> int | None:
    """The longest string a `^[..]...{m,n}$` pattern allows, when its last quantifier bounds
    it (the only patterns the pipeline uses); None when it cannot tell."""
    match = _TAIL.search(pattern)
    if match is None or not pattern.startswith("^"):
        return None
    head = _TAIL.sub("", pattern)[1:]
    fixed = len(re.findall(r"\[[^\]]*\]|\\.|[^\[\]\\]", head))
    return fixed + int(match.group(2))


def reply_tokens(schema: Any) -> int:
    """The estimated tokens of the longest JSON value `schema` allows (unbounded: a large
    number, so that fitting bounds it)."""
    if not isinstance(schema, dict):
        return 1
    if "enum" in schema or "const" in schema:
        values = schema.get("enum", [schema.get("const")])
        return 1 + max((_text_tokens(len(json.dumps(v))) for v in values), default=1)
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        total = 2
        for key, sub in (schema.get("properties") or {}).items():
            total += _text_tokens(len(key) + 2) + 3 + reply_tokens(sub)  # "key": value,
        return total
    if kind == "array":
        items = int(schema.get("maxItems", 10_000))
        return 2 + items * (reply_tokens(schema.get("items", {})) + 2)
    if kind == "string":
        length = schema.get("maxLength")
        if length is None and "pattern" in schema:
            length = _pattern_length(schema["pattern"])
        return 3 + _text_tokens(10_000 if length is None else length)
    if kind in ("integer", "number"):
        bound = max(abs(schema.get("minimum", 0)), abs(schema.get("maximum", 10**15)))
        return 2 + len(str(bound))
    return 2  # boolean, null


def _scaled(schema: Any, scale: float, shortest: int = _MIN_LENGTH) -> Any:
    if not isinstance(schema, dict):
        return schema
    return _scaled_object(schema, scale, shortest)


def _scaled_object(schema: dict[str, Any], scale: float, shortest: int) -> dict[str, Any]:
    out = dict(schema)
    if isinstance(out.get("properties"), dict):
        out["properties"] = {k: _scaled(v, scale, shortest) for k, v in out["properties"].items()}
    if "items" in out:
        out["items"] = _scaled(out["items"], scale, shortest)
    if out.get("type") == "array" and "enum" not in out:
        floor = max(1, out.get("minItems", 0))
        top = out.get("maxItems", 64)
        out["maxItems"] = max(floor, min(top, math.floor(top * scale)))
    if out.get("type") == "string" and "enum" not in out:
        pattern = out.get("pattern")
        longest = _pattern_length(pattern) if pattern else None
        top = out.get("maxLength", longest if longest is not None else 400)
        floor = max(out.get("minLength", 0), min(top, shortest))
        length = max(floor, min(top, math.floor(top * scale)))
        if pattern and longest is not None:
            match = _TAIL.search(pattern)
            assert match is not None
            low, high = int(match.group(1)), int(match.group(2))
            tail = max(low, high - (longest - length))
            out["pattern"] = _TAIL.sub(f"{{{low},{tail}}}$", pattern)
        else:
            out["maxLength"] = length
    return out


def fit_schema(schema: dict[str, Any], max_tokens: int, share: float = _SHARE) -> dict[str, Any]:
    """`schema` with its bounds scaled (all by one factor, the largest that fits, found by
    bisection) so that its longest reply is at most `share` of `max_tokens`; unchanged when
    it fits already. Lists stop at one item (or the schema's minimum), strings at 32
    characters, and below that only when one item of each list does not fit otherwise."""
    budget = max_tokens * share
    fitted = _scaled_object(
        copy.deepcopy(schema), 1.0, _MIN_LENGTH
    )  # unbounded lists and strings get a bound
    if reply_tokens(fitted) <= budget:
        return fitted
    if reply_tokens(_scaled(schema, 0.0)) > budget:  # shorter strings, one item each
        shortest = _MIN_LENGTH
        while shortest > 1 and reply_tokens(_scaled(schema, 0.0, shortest)) > budget:
            shortest -= 1
        return _scaled_object(schema, 0.0, shortest)
    low, high = 0.0, 1.0
    for _ in range(30):
        middle = (low + high) / 2
        if reply_tokens(_scaled(schema, middle)) <= budget:
            low = middle
        else:
            high = middle
    return _scaled_object(schema, low, _MIN_LENGTH)
