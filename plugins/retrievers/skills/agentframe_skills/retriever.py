"""`retrievers: [{use: skills}]`: preloads the one skill whose description matches the user's
message best (BM25 with bm25s over names and descriptions), when its score reaches
`preload_threshold`. The score is scale-free: the query's BM25 score for a skill divided by
the score of the skill's own name and description against itself, so 1.0 means the message
holds every word of the description, whatever the number and length of the skills (a raw
BM25 score grows with them). The skill is given whole when it fits the budget, else cut at a
line."""

from __future__ import annotations

import asyncio
import logging

from agentframe_core import RunContext, Skill, Snippet

from .catalog import loaded_text, scan
from .options import SkillsOptions

__all__ = ["SkillsRetriever"]

log = logging.getLogger("agentframe.skills")


def best_match(skills: list[Skill], query: str) -> tuple[Skill, float] | None:
    """The skill whose name and description the query covers best, with that share (0-1):
    its BM25 score (bm25s) over the score of the skill's own words against it."""
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
    asked = sorted({w for w in words([query[:4000]])[0] if w in model.vocab_dict})
    if not asked:
        return None
    scores = model.get_scores(asked)
    shares = []
    for i, doc in enumerate(corpus):
        own = float(model.get_scores(sorted(set(doc)))[i]) if doc else 0.0
        shares.append(float(scores[i]) / own if own > 0 else 0.0)
    best = max(range(len(skills)), key=shares.__getitem__)
    return skills[best], shares[best]


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
        threshold = self.options.preload_threshold
        if match is None:
            log.info("skills: no skill shares a word with the message")
            return []
        skill, score = match
        log.info(
            "skills: best match %s scored %.2f (preload_threshold %.2f): %s",
            skill.name,
            score,
            threshold,
            "preloaded" if score >= threshold else "not preloaded",
        )
        if score < threshold:
            return []
        text = cut_at_line(loaded_text(skill), budget_tokens * 4)
        return [Snippet(text, f"skill:{skill.name}", score)] if text else []
