"""`retrievers: [{use: skills}]`: preloads the one skill whose description matches the user's
message best (BM25 with bm25s over names and descriptions), when it scores at least
`preload_threshold`. The skill is given whole when it fits the budget, else cut at a line."""

from __future__ import annotations

import asyncio

from agentframe_core import RunContext, Skill, Snippet

from .catalog import loaded_text, scan
from .options import SkillsOptions

__all__ = ["SkillsRetriever"]


def best_match(skills: list[Skill], query: str) -> tuple[Skill, float] | None:
    """The skill whose name and description score highest against `query` (BM25, bm25s)."""
    import bm25s
    import Stemmer

    stemmer = Stemmer.Stemmer("english")

    def words(texts: list[str]) -> list[list[str]]:
        found: list[list[str]] = bm25s.tokenize(
            texts, stopwords="en", stemmer=stemmer, return_ids=False, show_progress=False
        )
        return found

    corpus = words([f"{s.name.replace('-', ' ')} {s.description}" for s in skills])
    model = bm25s.BM25()
    model.index(corpus, show_progress=False)
    asked = [w for w in words([query[:4000]])[0] if w in model.vocab_dict]
    if not asked:
        return None
    scores = model.get_scores(asked)
    best = int(scores.argmax())
    return skills[best], float(scores[best])


def cut_at_line(text: str, room: int) -> str:
    if len(text) <= room:
        return text
    end = text.rfind("\n", 0, room + 1)
    return text[:end].rstrip() if end > 0 else ""


class SkillsRetriever:
    def __init__(self, options: SkillsOptions) -> None:
        self.options = options

    async def retrieve(self, query: str, *, ctx: RunContext, budget_tokens: int) -> list[Snippet]:
        if not query.strip() or budget_tokens <= 0 or not self.options.preload_threshold:
            return []
        return await asyncio.to_thread(self._preload, query, budget_tokens)

    def _preload(self, query: str, budget_tokens: int) -> list[Snippet]:
        skills = scan(self.options.folders).skills
        match = best_match(skills, query) if skills else None
        if match is None or match[1] < self.options.preload_threshold:
            return []
        skill, score = match
        text = cut_at_line(loaded_text(skill), budget_tokens * 4)
        return [Snippet(text, f"skill:{skill.name}", score)] if text else []
