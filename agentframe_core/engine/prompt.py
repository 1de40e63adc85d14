"""The system prompt of a session: base template, agent body, AGENTS.md, skills.

`extend` (the default): the base template (tool conventions, formatting, the user's
environment), then the agent's body as written, then the AGENTS.md section, then the skills.
`full`: the body is the whole prompt, rendered as a template (see `agents.template`), then
AGENTS.md and skills. With no agent: the base template and AGENTS.md. `outputFormat: concise`
adds a last section. Everything is deterministic for a given working directory and
environment, except `current_date`.

An `extend` body is not a template: prose that quotes `${{ secrets.TOKEN }}` (a GitHub
Actions example) stays as written. AGENTS.md and skill files are content, never rendered.
"""

from __future__ import annotations

import functools
import logging
import os
import platform
from collections.abc import Mapping
from datetime import date
from pathlib import Path

from ..contract.definition import AgentDefinition
from ..contract.errors import UnknownSkillError
from ..support.files import AGENT_FILE_LIMIT, FileReadError, PathEscapeError, read_text_file
from .definitions.folders import project_dirs
from .definitions.skills import Skill, find_skill, skill_folders
from .definitions.template import PromptTemplate, ToolNames, compiled
from .instructions import instruction_files

__all__ = ["BASE_TEMPLATE", "agents_md_files", "assemble_system_prompt", "resolve_skills"]

log = logging.getLogger(__name__)

AGENTS_MD = "AGENTS.md"

BASE_TEMPLATE = """\
You are an AI agent. Work on the user's request until it is done, then answer.

# Tools

${% if tools %}
You can call these tools:
${% for canonical in tools %}
- ${{ tools[canonical] }}
${% endfor %}

Call a tool when it gives you information you do not have or does work the user asked for;
do not call one for what you already know. Use the argument names of each tool's schema
exactly. When a tool returns an error, read it and correct the call rather than repeating it.
Calls that do not depend on each other can go in the same reply. Never invent a tool's result.
${% else %}
You have no tools in this session: answer from what you know and what the user gives you.
${% endif %}

# Formatting

Answer in the user's language. Use Markdown: short paragraphs, lists for steps, fenced code
blocks with a language tag. Refer to files as `path:line`. Say plainly when you do not know
something or could not finish.

# Environment

- Operating system: ${{ os_name }}
- Shell: ${{ shell_path }}
- Working directory: ${{ working_directory }}
- Today's date: ${{ current_date }}
"""

CONCISE = """\
# Output format

Be concise: lead with the answer, use as few words as the task allows, and skip preambles,
recaps and offers of further help."""


def assemble_system_prompt(
    agent: AgentDefinition | None,
    tool_names: Mapping[str, str],
    *,
    cwd: Path,
    today: date | None = None,
) -> str:
    """The full system prompt. `tool_names` maps canonical -> model-facing name for the
    tools this agent can actually use (after allow/deny and `toolNameOverrides`).

    Raises `AgentTemplateError` (a `full` body that fails to render, with its line) and
    `UnknownSkillError` (a skill that no skills folder holds).
    """
    cwd = cwd.absolute()
    variables = {
        "tools": ToolNames(tool_names),
        "os_name": platform.system() or os.name,
        "shell_path": os.environ.get("SHELL") or ("cmd.exe" if os.name == "nt" else "/bin/sh"),
        "working_directory": str(cwd),
        "current_date": (today or date.today()).isoformat(),
    }
    sections: list[str] = []
    if agent is None or agent.prompt_mode == "extend":
        sections.append(_base_template().render(variables))
        if agent is not None:
            sections.append(agent.prompt)
    else:
        template = compiled(
            agent.prompt, file=agent.path, first_line=agent.prompt_line, name=agent.name
        )
        sections.append(template.render(variables))
    if agent is None or agent.agents_md:
        sections.append(_agents_md_section(cwd))
    if agent is not None and agent.skills:
        sections.append(_skills_section(resolve_skills(agent, cwd), cwd))
    if agent is not None and agent.output_format == "concise":
        sections.append(CONCISE)
    text = "\n\n".join(section.strip() for section in sections if section.strip())
    return text + "\n" if text else ""


@functools.cache
def _base_template() -> PromptTemplate:
    return PromptTemplate(BASE_TEMPLATE, name="<base template>")


def agents_md_files(cwd: Path) -> list[Path]:
    """Instruction files (AGENTS.md, CLAUDE.md: `instructions.INSTRUCTION_FILES`) from the
    repository root down to `cwd`, after the user's, each followed by what it imports
    (outermost first, so the nearest, most specific instructions come last)."""
    return instruction_files(cwd)


def _agents_md_section(cwd: Path) -> str:
    parts = []
    files = agents_md_files(cwd)
    for path in files:
        try:
            text = read_text_file(path, AGENT_FILE_LIMIT, "project instructions").strip()
        except FileReadError as err:
            log.warning("skipped: %s", err)
            continue
        if text:
            parts.append(f"## {_shown(path, cwd)}\n\n{text}")
    if not parts:
        return ""
    kinds = "AGENTS.md" if all(path.name == AGENTS_MD for path in files) else "instruction"
    intro = (
        "# Project instructions\n\n"
        f"These {kinds} files apply to the working directory, outermost first; where they "
        "disagree, the later (nearer) one wins."
    )
    return "\n\n".join([intro, *parts])


def resolve_skills(agent: AgentDefinition, cwd: Path) -> list[Skill]:
    """The skills `agent` names, in its order; a missing one is an `UnknownSkillError`."""
    base = agent.path.parent if agent.path else None
    skills = []
    for index, reference in enumerate(agent.skills):
        line = agent.lines.get(f"skills.{index}") or agent.lines.get("skills")
        try:
            skill = find_skill(reference, cwd, relative_to=base, also=agent.skill_folders)
        except PathEscapeError as err:
            raise UnknownSkillError(
                f"skill {reference!r}: {err.reason}",
                file=agent.path,
                line=line,
                field="skills",
                name=agent.name,
            ) from None
        if skill is None:
            searched = ", ".join(str(folder) for folder in skill_folders(cwd))
            raise UnknownSkillError(
                f"skill {reference!r} not found (looked in: {searched})",
                file=agent.path,
                line=line,
                field="skills",
                name=agent.name,
            )
        skills.append(skill)
    return skills


def _skills_section(skills: list[Skill], cwd: Path) -> str:
    parts = ["# Skills\n\nFollow these instructions when the task calls for them."]
    for skill in skills:
        lines = [f"## {skill.name}"]
        if skill.description:
            lines.append(skill.description)
        if skill.folder is not None:
            lines.append(
                f"This skill's files are in `{_shown(skill.folder, cwd)}`; read them when the "
                "instructions refer to them."
            )
        if skill.instructions:
            lines.append(skill.instructions)
        parts.append("\n\n".join(lines))
    return "\n\n".join(parts)


def _shown(path: Path, cwd: Path) -> str:
    """A path as the model sees it: relative to the repository root (or, outside a
    repository, the working directory) when inside it, so the prompt does not depend on
    where the checkout lives."""
    base = project_dirs(cwd)[-1]
    if path.is_relative_to(base):
        return path.relative_to(base).as_posix()
    home = Path.home()
    return "~/" + path.relative_to(home).as_posix() if path.is_relative_to(home) else str(path)
