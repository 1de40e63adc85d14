"""Text to BM25 terms, the way bm25s tokenizes: its word pattern, its English stopwords, and a
Snowball stemmer (PyStemmer, which bm25s recommends), so that "configured" finds "configure"."""

from __future__ import annotations

from collections import Counter
from typing import Any

from bm25s.tokenization import Tokenizer

__all__ = ["Analyzer"]

#: Text beyond this is not indexed (a memory is a note, not a book).
MAX_INDEXED_CHARS = 200_000


class Analyzer:
    def __init__(self, *, stem: bool = True) -> None:
        stemmer: Any = None
        if stem:
            import Stemmer

            stemmer = Stemmer.Stemmer("english")
        reference = Tokenizer(stopwords="en")  # bm25s's own splitter and stopword list
        self._split = reference.splitter
        self._stop = frozenset(reference.stopwords)
        self._stem = stemmer.stemWords if stemmer is not None else None
        #: Recorded with the index: an index built with other settings is rebuilt.
        self.signature = f"bm25s-words+en-stop+{'snowball' if stem else 'nostem'}"

    def terms(self, text: str) -> list[str]:
        words = [w for w in self._split(text[:MAX_INDEXED_CHARS].lower()) if w not in self._stop]
        if self._stem is not None and words:
            words = self._stem(words)
        return list(words)

    def counts(self, text: str) -> dict[str, int]:
        return dict(Counter(self.terms(text)))
