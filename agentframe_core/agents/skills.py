"""Skills an agent preloads: instructions in Markdown, found by name or path.

A skill named `review` is, nearest first:
  `<dir>/.agentframe/skills/review/SKILL.md`  (a folder skill: its other files sit beside it)
  `<dir>/.agentframe/skills/review.md`        (a single-file skill)
for every `<dir>` from the working directory up to the repository root, then the same two
under `~/.agentframe/skills/`. A reference containing `/` or ending in `.md` is a path instead
(relative to the definition file's folder): a skill file, or a folder holding `SKILL.md`.
The optional frontmatter gives `name` and `description` (Agent Skills style); the body is
the instructions.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .folders import project_dirs
from .frontmatter import read_frontmatter

__all__ = ["SKILLS_FOLDER", "Skill", "find_skill", "skill_folders"]

SKILLS_FOLDER = ".agentframe/skills"
SKILL_FILE = "SKILL.md"


@dataclass(frozen=True, slots=True)
class Skill:
    name: str
    description: str
    instructions: str
    path: Path
    #: The skill's own folder (None for a single-file skill).
    folder: Path | None = None


def skill_folders(cwd: Path) -> list[Path]:
    """Where skills are looked up by name, nearest first."""
    return [d / SKILLS_FOLDER for d in project_dirs(cwd)] + [Path.home() / SKILLS_FOLDER]


def find_skill(reference: str, cwd: Path, *, relative_to: Path | None = None) -> Skill | None:
    """The skill `reference` names, or None. A malformed skill file raises the parse error."""
    if "/" in reference or reference.endswith(".md"):
        path = Path(reference).expanduser()
        if not path.is_absolute():
            path = (relative_to or cwd) / path
        if path.is_dir():
            path = path / SKILL_FILE
        return _read(path) if path.is_file() else None
    for folder in skill_folders(cwd):
        for candidate in (folder / reference / SKILL_FILE, folder / f"{reference}.md"):
            if candidate.is_file():
                return _read(candidate)
    return None


def _read(path: Path) -> Skill:
    fm = read_frontmatter(path, required=False)
    is_folder = path.name == SKILL_FILE
    default_name = path.parent.name if is_folder else path.stem
    name, description = fm.data.get("name"), fm.data.get("description")
    return Skill(
        name=str(name) if name else default_name,
        description=str(description).strip() if description else "",
        instructions=fm.body,
        path=path,
        folder=path.parent if is_folder else None,
    )
