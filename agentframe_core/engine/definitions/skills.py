"""Skills an agent preloads: instructions in Markdown, found by name or path.

A skill named `review` is, nearest first:
  `<dir>/.agentframe/skills/review/SKILL.md`  (a folder skill: its other files sit beside it)
  `<dir>/.agentframe/skills/review.md`        (a single-file skill)
for every `<dir>` from the working directory up to the repository root (and the same under
`<dir>/.claude/skills/`), then under `~/.agentframe/skills/`, then in the folders a caller adds.
A reference containing `/` or ending in `.md` is a path instead (relative to the definition
file's folder): a skill file, or a folder holding `SKILL.md`. The optional frontmatter gives
`name` and `description` (Agent Skills style); the body is the instructions.

Every skill file read, by name, by path or listed by `discover_skills`, must lie inside the
project (the repository root, or the working directory outside a repository), one of the
skills folders or (for a path) the definition file's own folder once its symbolic links are
resolved: a definition file cloned with a repository cannot put `/etc/hostname` or a private
key into the prompt (`PathEscapeError`).

`discover_skills` lists every skill of those folders (nearest wins a name; a folder holding a
`SKILL.md` is that one skill), with the files that failed to load; `skill_resources` lists the
files beside a folder skill's `SKILL.md`. Agents' `skills:` preloading and the skills plugin
both read skills through this module. A `name` that is a display name ("Agent Development",
as Claude Code's plugins write it) is kept as `display_name`; the name is the folder's.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ...contract.errors import AgentframeError
from ...support.files import confined
from .folders import project_dirs
from .frontmatter import read_frontmatter

__all__ = [
    "SKILLS_FOLDER",
    "Skill",
    "SkillScan",
    "discover_skills",
    "find_skill",
    "skill_folders",
    "skill_resources",
    "skill_roots",
]

SKILLS_FOLDER = ".agentframe/skills"
PROJECT_SKILLS_FOLDERS = (SKILLS_FOLDER, ".claude/skills")
SKILL_FILE = "SKILL.md"
MAX_RESOURCES = 200
#: Agent Skills names: lowercase letters, digits and hyphens.
SKILL_NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")


@dataclass(frozen=True, slots=True)
class Skill:
    name: str
    description: str
    instructions: str
    path: Path
    #: The skill's own folder (None for a single-file skill).
    folder: Path | None = None
    #: The frontmatter's `name` when it is a display name ("Agent Development"), not a name.
    display_name: str | None = None


@dataclass(frozen=True, slots=True)
class SkillScan:
    """Every skill found, by name; and each file that could not be used, with why."""

    skills: list[Skill] = field(default_factory=list)
    failures: list[tuple[Path, str]] = field(default_factory=list)


def skill_folders(cwd: Path, extra: Iterable[Path] = ()) -> list[Path]:
    """Where skills are looked up by name, nearest first."""
    project = [d / folder for d in project_dirs(cwd) for folder in PROJECT_SKILLS_FOLDERS]
    return [*project, Path.home() / SKILLS_FOLDER, *(Path(p).expanduser() for p in extra)]


def skill_roots(cwd: Path, extra: Iterable[Path] = ()) -> list[Path]:
    """Where a skill file may lie, links resolved: the project and every skills folder."""
    return [project_dirs(cwd)[-1], *skill_folders(cwd, extra)]


def discover_skills(cwd: Path, extra: Iterable[Path] = ()) -> SkillScan:
    """Every skill in `skill_folders`, sorted by name; a file that fails (a link out of
    `skill_roots` too) is reported in `failures` and hides nothing else. A skill needs a
    valid name and a description."""
    found: dict[str, Skill] = {}
    failures: list[tuple[Path, str]] = []
    extra = list(extra)
    roots = skill_roots(cwd, extra)
    for folder in skill_folders(cwd, extra):
        try:
            if (folder / SKILL_FILE).is_file():  # one skill (a plugin's `skills` may name one)
                entries = [folder]
            else:
                entries = sorted(folder.iterdir()) if folder.is_dir() else []
        except OSError as err:
            failures.append((folder, f"cannot list: {err.strerror or err}"))
            continue
        for entry in entries:
            path = entry / SKILL_FILE if entry.is_dir() else entry
            if path.name.startswith(".") or path.suffix != ".md" or not path.exists():
                continue
            try:
                skill = _read(path, roots)
            except (AgentframeError, OSError) as err:
                failures.append((path, str(err)))
                continue
            problem = _unusable(skill)
            if problem:
                failures.append((path, problem))
            elif skill.name not in found:  # the nearer folder wins a name
                found[skill.name] = skill
    return SkillScan([found[name] for name in sorted(found)], failures)


def _unusable(skill: Skill) -> str | None:
    if not SKILL_NAME.match(skill.name):
        return f"name {skill.name!r}: use lowercase letters, digits and hyphens (at most 64)"
    if not skill.description:
        return "no description: the model could not tell when to load this skill"
    return None


def skill_resources(skill: Skill) -> list[str]:
    """The files beside a folder skill's SKILL.md, relative to its folder, sorted (at most
    MAX_RESOURCES; hidden files and symlinked folders are left out)."""
    if skill.folder is None:
        return []
    found: list[str] = []
    for root, dirs, files in os.walk(skill.folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        base = Path(root)
        for name in sorted(files):
            path = base / name
            if name.startswith(".") or path == skill.path:
                continue
            found.append(path.relative_to(skill.folder).as_posix())
            if len(found) >= MAX_RESOURCES:
                return found
    return found


def find_skill(
    reference: str,
    cwd: Path,
    *,
    relative_to: Path | None = None,
    also: Iterable[Path] = (),
) -> Skill | None:
    """The skill `reference` names, or None. A malformed skill file raises the parse error;
    one outside the project, the skills folders, `relative_to` (the definition's own
    folder, whose files are the definition's to name) and `also` (the folders the
    definition's loader keeps skills in), `PathEscapeError`."""
    roots = [*skill_roots(cwd), *([relative_to] if relative_to is not None else []), *also]
    if "/" in reference or reference.endswith(".md") or reference in (".", ".."):
        path = Path(reference).expanduser()
        if not path.is_absolute():
            path = (relative_to or cwd) / path
        confined(path, roots, "skill")  # before anything is looked at
        if path.is_dir():
            path = path / SKILL_FILE
        return _read(path, roots) if path.is_file() else None
    for folder in skill_folders(cwd):
        for candidate in (folder / reference / SKILL_FILE, folder / f"{reference}.md"):
            if candidate.is_file():
                return _read(candidate, roots)
    return None


def _read(path: Path, roots: list[Path]) -> Skill:
    """One skill file inside `roots`; `read_frontmatter` refuses non-regular, oversized and
    non-UTF-8 files."""
    confined(path, roots, "skill")
    fm = read_frontmatter(path, required=False)
    is_folder = path.name == SKILL_FILE
    name, display = _names(fm.data.get("name"), path.parent.name if is_folder else path.stem)
    description = fm.data.get("description")
    return Skill(
        name=name,
        description=str(description).strip() if description else "",
        instructions=fm.body,
        path=path,
        folder=path.parent if is_folder else None,
        display_name=display,
    )


def _names(given: object, file_name: str) -> tuple[str, str | None]:
    """(the skill's name, its display name). A `name` that is no skill name ("Agent
    Development", as Claude Code's own plugins write it) is kept as the display name when
    the folder's (or file's) name is a skill name: that is the skill's name, as in Claude
    Code."""
    text = str(given).strip() if given is not None else ""
    if text and not SKILL_NAME.match(text) and SKILL_NAME.match(file_name):
        return file_name, text
    return text or file_name, None
