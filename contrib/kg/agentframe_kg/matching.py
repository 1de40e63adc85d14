"""normalize_names' matching: which surface names are one entity by rule, which pairs are worth
asking the model about, and the canonical name of each merged group.

An entity is a (type, name) pair: names of different types are never merged. Comparing every
pair is quadratic (1,500 names took 21 s), so names are compared only within blocks (one type,
a word's first four letters in common), smallest blocks first, and the comparisons stop at a
bound fixed before any is made.
"""

from __future__ import annotations

import difflib
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["Candidates", "Key", "candidate_pairs", "canonical_names", "rule_key"]

#: (type, rule key): one entity before the model is asked.
Key = tuple[str, str]

_PREFIX = 4
_NEAR = 0.85
#: Punctuation that tells names apart (C, C#, C++; AT&T) rather than separating words.
_KEPT = set("#&%@*")


def rule_key(name: str) -> str:
    """Names equal under this rule are one entity (of one type) without asking: case, the
    punctuation between words, a leading "the"."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    spaced = "".join(" " if _separates(ch) else ch for ch in folded)
    words = spaced.split()
    return " ".join(words[1:] if words[:1] == ["the"] and len(words) > 1 else words)


def _separates(ch: str) -> bool:
    category = unicodedata.category(ch)
    return category[0] == "Z" or (category[0] == "P" and ch not in _KEPT)


@dataclass(frozen=True)
class Candidates:
    pairs: list[tuple[Key, Key]]
    comparisons: int
    #: The bound stopped the search: some pairs in blocks were not compared.
    cut: bool


def candidate_pairs(keys: Iterable[Key], max_comparisons: int) -> Candidates:
    """Pairs of one type where one name's words contain the other's, or the names nearly
    match, sorted."""
    blocks: dict[tuple[str, str], list[Key]] = {}
    for key in sorted(set(keys)):
        for prefix in sorted({word[:_PREFIX] for word in key[1].split()}):
            blocks.setdefault((key[0], prefix), []).append(key)
    found: set[tuple[Key, Key]] = set()
    compared: set[tuple[Key, Key]] = set()
    for block in sorted(blocks.values(), key=len):
        for i, a in enumerate(block):
            for b in block[i + 1 :]:
                if (a, b) in compared:
                    continue
                if len(compared) == max_comparisons:
                    return Candidates(sorted(found), len(compared), True)
                compared.add((a, b))
                if _similar(a[1], b[1]):
                    found.add((a, b))
    return Candidates(sorted(found), len(compared), False)


def _similar(a: str, b: str) -> bool:
    wa, wb = set(a.split()), set(b.split())
    if wa <= wb or wb <= wa:
        return True
    matcher = difflib.SequenceMatcher(None, a, b)
    return (
        matcher.real_quick_ratio() >= _NEAR
        and matcher.quick_ratio() >= _NEAR
        and (matcher.ratio() >= _NEAR)
    )


def canonical_names(
    groups: dict[Key, set[str]], merged: Iterable[tuple[Key, Key]]
) -> dict[str, dict[str, str]]:
    """type -> surface name -> canonical name: the longest name of its merged group,
    preferring names without a leading article. Pairs of two types are not merged."""
    parent = {k: k for k in groups}

    def root(k: Key) -> Key:
        while parent[k] != k:
            k = parent[k]
        return k

    for a, b in merged:
        if a[0] == b[0]:
            parent[root(a)] = root(b)
    members: dict[Key, list[str]] = {}
    for key in sorted(groups):
        members.setdefault(root(key), []).extend(sorted(groups[key]))
    result: dict[str, dict[str, str]] = {}
    for (cls, _), names in members.items():
        best = max(names, key=lambda n: (not n.lower().startswith("the "), len(n), n))
        result.setdefault(cls, {}).update({n: best for n in names})
    return result
