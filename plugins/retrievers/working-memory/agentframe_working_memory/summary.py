"""The summary itself: decisions, open tasks and facts, asked of the model through a JSON
schema that bounds every list and string, with a cap on the reply's tokens."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from agentframe_core import strip_fence

__all__ = ["FIELDS", "Summary", "summary_schema"]

FIELDS = ("decisions", "open_tasks", "facts")
MAX_ITEMS, MAX_ITEM_CHARS = 8, 200
HEADINGS = {"decisions": "Decisions", "open_tasks": "Open tasks", "facts": "Facts learned"}


def summary_schema() -> dict[str, Any]:
    item = {"type": "string", "maxLength": MAX_ITEM_CHARS}
    listing = {"type": "array", "items": item, "maxItems": MAX_ITEMS}
    return {
        "type": "object",
        "properties": {name: listing for name in FIELDS},
        "required": list(FIELDS),
        "additionalProperties": False,
    }


@dataclass(frozen=True, slots=True)
class Summary:
    decisions: tuple[str, ...] = ()
    open_tasks: tuple[str, ...] = ()
    facts: tuple[str, ...] = ()

    @classmethod
    def parse(cls, text: str) -> Summary:
        """From a model reply or a stored entry; ValueError when it is not one."""
        data = json.loads(strip_fence(text))
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        values: dict[str, tuple[str, ...]] = {}
        for name in FIELDS:
            items = data.get(name, [])
            if not isinstance(items, list):
                raise ValueError(f"{name} is not a list")
            cleaned = (" ".join(str(i).split())[:MAX_ITEM_CHARS] for i in items[:MAX_ITEMS])
            values[name] = tuple(dict.fromkeys(i for i in cleaned if i))
        return cls(**values)

    def to_json(self) -> str:
        return json.dumps({name: list(getattr(self, name)) for name in FIELDS}, ensure_ascii=False)

    def __bool__(self) -> bool:
        return any(getattr(self, name) for name in FIELDS)

    def render(self) -> str:
        parts = []
        for name in FIELDS:
            items = getattr(self, name)
            if items:
                parts.append(f"{HEADINGS[name]}:\n" + "\n".join(f"- {i}" for i in items))
        return "\n".join(parts)
