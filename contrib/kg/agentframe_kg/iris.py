"""Entity IRIs: readable, and never shared by two entities.

The local name keeps a name's letters, marks and digits in any script (an IRI may hold them:
`kg:東京`, `kg:Москва`) and makes every other run of characters one `_`. Entities whose local
names collide (`C`, `C#` and `C++` are all `C`; one name of two types) each get a hash of
their type and name after a `-`, which no local name contains, so a suffixed IRI cannot equal
another entity's plain one.
"""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Iterable

from rdflib import URIRef

from .tbox import ID

__all__ = ["entity_iris"]

_MAX_LOCAL = 100


def entity_iris(entities: Iterable[tuple[str, str]]) -> dict[tuple[str, str], URIRef]:
    """(type, name) -> its IRI, for all the graph's entities at once."""
    by_local: dict[str, list[tuple[str, str]]] = {}
    for entity in sorted(set(entities)):
        by_local.setdefault(_local(entity[1]), []).append(entity)
    iris = {}
    for local, members in by_local.items():
        for cls, name in members:
            suffix = "" if len(members) == 1 else "-" + _digest(cls, name)
            iris[(cls, name)] = ID[local + suffix]
    return iris


def _local(name: str) -> str:
    text = unicodedata.normalize("NFC", name)
    kept = "".join(ch if _is_word(ch) else " " for ch in text)
    return "_".join(kept.split())[:_MAX_LOCAL].strip("_") or "entity"


def _is_word(ch: str) -> bool:
    if ch.isascii():
        return ch.isalnum()
    return unicodedata.category(ch)[0] in "LMN"


def _digest(cls: str, name: str) -> str:
    return hashlib.sha256(f"{cls}\0{name}".encode()).hexdigest()[:10]
