"""The skills visible from the working directory, read through the kernel's one skill reader,
and how a loaded skill is shown to the model (its body, then its files by relative path)."""

from __future__ import annotations

import logging
from pathlib import Path

from agentframe_core import Skill, SkillScan, discover_skills, skill_resources

__all__ = ["index_text", "loaded_text", "scan"]

log = logging.getLogger("agentframe.skills")


def scan(folders: list[Path], cwd: Path | None = None) -> SkillScan:
    found = discover_skills(cwd or Path.cwd(), folders)
    for path, why in found.failures:
        log.warning("skill skipped: %s: %s", path, why)
    return found


def index_text(skills: list[Skill]) -> str:
    """Names and descriptions only, sorted by name: the same text on every turn."""
    return "\n".join(f"- {s.name}: {' '.join(s.description.split())}" for s in skills)


def loaded_text(skill: Skill) -> str:
    parts = [f"# Skill: {skill.name}", skill.instructions.strip()]
    resources = skill_resources(skill)
    if resources and skill.folder is not None:
        listing = "\n".join(f"- {r}" for r in resources)
        parts.append(
            f"## Files of this skill\n\nIn `{skill.folder}`; read them with your file tools "
            f"when the instructions refer to them:\n\n{listing}"
        )
    return "\n\n".join(p for p in parts if p)
