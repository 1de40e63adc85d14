"""System prompts assembled once per process, and again only when a file they read changed.

Assembling a session's default prompt renders the base template and looks for AGENTS.md files
and skills on the file system: about 0.5 ms, paid by every new session. The result depends
only on the agent, the tool names, the working directory, the environment, the date, and the
files read. So it is kept, with the stat (mtime, size) of every path whose change could change
it, taken *before* the prompt is assembled; a later session re-stats those paths (~1 µs each)
and reuses the prompt when none moved:

- every folder from the working directory up to the repository root, or up to `/` outside
  a repository (a new or removed `.git`, AGENTS.md or skills folder changes the mtime of the
  folder that holds it; a `.git` appearing above the root does not change which root is
  nearest);
- every instruction file that exists there (AGENTS.md, CLAUDE.md) and every file they
  import, and the user's `~/.claude/CLAUDE.md` (an edit changes its mtime or size);
- for an agent with skills: every skills folder and every candidate file of each skill.

A file edited twice within the file system's mtime granularity with the same size is the one
change this cannot see.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from ..contract.definition import AgentDefinition
from .definitions.folders import project_dirs, repo_root
from .definitions.skills import SKILL_FILE, skill_folders
from .instructions import USER_INSTRUCTION_FILES
from .prompt import agents_md_files, assemble_system_prompt

__all__ = ["cached_system_prompt", "clear"]

#: Prompts kept (agents x tool sets x working directories in one process).
_SIZE = 64

Stamp = tuple[int, int] | None


@dataclass(frozen=True, slots=True)
class _Kept:
    watched: tuple[Path, ...]
    stamps: tuple[Stamp, ...]
    text: str


_kept: OrderedDict[tuple[object, ...], _Kept] = OrderedDict()


def cached_system_prompt(
    agent: AgentDefinition | None, tool_names: Mapping[str, str], *, cwd: Path
) -> str:
    """`assemble_system_prompt(agent, tool_names, cwd=cwd)`, reused while its files hold."""
    cwd = cwd.absolute()
    key = (
        _agent_key(agent),
        tuple(sorted(tool_names.items())),
        cwd,
        os.environ.get("SHELL"),
        date.today(),
    )
    kept = _kept.get(key)
    if kept is not None and _stamps(kept.watched) == kept.stamps:
        _kept.move_to_end(key)
        return kept.text
    watched = _watched(agent, cwd)
    stamps = _stamps(watched)  # before reading: a change made meanwhile is seen next time
    text = assemble_system_prompt(agent, tool_names, cwd=cwd)
    _kept[key] = _Kept(watched, stamps, text)
    _kept.move_to_end(key)
    if len(_kept) > _SIZE:
        _kept.popitem(last=False)
    return text


def clear() -> None:
    """Forget every kept prompt (for benchmarks and tests)."""
    _kept.clear()


def _agent_key(agent: AgentDefinition | None) -> object:
    """Everything of the agent that the prompt is made of."""
    if agent is None:
        return None
    return (
        agent.name,
        agent.path,
        agent.prompt,
        agent.prompt_mode,
        agent.prompt_line,
        agent.agents_md,
        tuple(agent.skills),
        agent.output_format,
    )


def _watched(agent: AgentDefinition | None, cwd: Path) -> tuple[Path, ...]:
    folders = project_dirs(cwd) if repo_root(cwd) is not None else [cwd, *cwd.parents]
    home = [Path.home() / name for name in USER_INSTRUCTION_FILES]
    paths = folders + home + agents_md_files(cwd)
    if agent is not None and agent.skills:
        base = agent.path.parent if agent.path else cwd
        for reference in agent.skills:
            direct = Path(reference).expanduser()
            direct = direct if direct.is_absolute() else base / direct
            paths += [direct, direct / SKILL_FILE]
            for folder in skill_folders(cwd):
                paths += [folder, folder / reference, folder / reference / SKILL_FILE]
                paths.append(folder / f"{reference}.md")
    return tuple(dict.fromkeys(paths))


def _stamps(paths: tuple[Path, ...]) -> tuple[Stamp, ...]:
    return tuple(_stamp(path) for path in paths)


def _stamp(path: Path) -> Stamp:
    try:
        found = os.stat(path)
    except (OSError, ValueError):
        return None
    return found.st_mtime_ns, found.st_size
