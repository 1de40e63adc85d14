"""BM25 over a few short texts, in pure Python: the kernel's one scorer (tool selection).

The memory and skills plugins rank with bm25s, a dependency the kernel does not have (and
must not import from a plugin); for tens of tool descriptions an index is not needed, so
the scores are computed directly. Same formula as bm25s's default (Lucene's BM25: its idf
never negative), words split like bm25s's (letters and digits; `_` and `-` split too, so
`mcp_fs_read_file` is four words), English stopwords dropped, and a light suffix stemmer
so that "files" finds "file" and "searching" finds "search".
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

__all__ = ["bm25_scores", "words"]

#: Text beyond this is not looked at (a query or a description, not a book).
MAX_CHARS = 20_000

_WORD = re.compile(r"[^\W_]{2,}")
_SUFFIXES = ("ings", "ing", "ies", "ied", "es", "ed", "s")
_STOPWORDS = frozenset(
    re.findall(
        r"\w+",
        "a an and are as at be but by can do does for from has have how i if in into is it its "
        "me my no not of on or our so than that the their them then there these they this to "
        "us was we were what when where which who why will with would you your",
    )
)


def _stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            stem = word[: -len(suffix)]
            return stem + "y" if suffix in ("ies", "ied") else stem
    return word


def words(text: str) -> list[str]:
    """`text` as BM25 terms: lower-cased words of two or more characters, stopwords out,
    suffixes stripped."""
    found = _WORD.findall(text[:MAX_CHARS].lower())
    return [_stem(w) for w in found if w not in _STOPWORDS]


def bm25_scores(
    documents: Sequence[str], query: str, *, k1: float = 1.5, b: float = 0.75
) -> list[float]:
    """The BM25 score of each document for `query` (0.0 where no query word occurs)."""
    docs = [Counter(words(d)) for d in documents]
    if not docs:
        return []
    lengths = [sum(c.values()) for c in docs]
    average = (sum(lengths) / len(docs)) or 1.0
    asked = set(words(query))
    scores = [0.0] * len(docs)
    for term in asked:
        holding = [i for i, counts in enumerate(docs) if term in counts]
        if not holding:
            continue
        idf = math.log(1 + (len(docs) - len(holding) + 0.5) / (len(holding) + 0.5))
        for i in holding:
            tf = docs[i][term]
            scores[i] += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * lengths[i] / average))
    return scores
