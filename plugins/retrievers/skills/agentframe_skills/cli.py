"""`agentframe skills list|show [--json]`: every skill found from here, its folder, and every
file that failed to load (a failure never hides the other skills)."""

from __future__ import annotations

from pathlib import Path

import click

from agentframe_core.cli import App, emit_json, handle_errors, pass_app, warn

from .options import SkillsOptions

NAME = "skills"


def _options(app: App) -> SkillsOptions:
    # Only the retrievers and tools: these commands need no model and no store.
    parts = [part for kind_parts in app.part_lists().values() for part in kind_parts]
    found = next((p.options for p in parts if p.name == NAME), None)
    return found if isinstance(found, SkillsOptions) else SkillsOptions()


def _source(path: Path) -> str:
    """The skills folder a skill came from."""
    return str(path.parent.parent if path.name == "SKILL.md" else path.parent)


@click.group()
def skills() -> None:
    """Agent Skills visible from this folder (the skills plugin)."""


@skills.command("list")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@pass_app
def list_(app: App, as_json: bool) -> None:
    """Every skill found, its source folder, and the files that failed to load."""
    from .catalog import scan

    with handle_errors():
        found = scan(_options(app).folders)
        if as_json:
            emit_json(
                {
                    "skills": [
                        {
                            "name": s.name,
                            "display_name": s.display_name,
                            "description": s.description,
                            "path": str(s.path),
                            "source": _source(s.path),
                        }
                        for s in found.skills
                    ],
                    "failures": [{"path": str(p), "error": why} for p, why in found.failures],
                }
            )
        else:
            for s in found.skills:
                shown = f"{s.name} ({s.display_name})" if s.display_name else s.name
                click.echo(f"{shown}  {_source(s.path)}\n    {s.description}")
            for path, why in found.failures:
                warn(f"failed: {path}: {why}")
        if found.failures:
            raise SystemExit(1)


@skills.command()
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@pass_app
def show(app: App, name: str, as_json: bool) -> None:
    """One skill: what `load_skill` gives the model."""
    from agentframe_core import skill_resources

    from .catalog import loaded_text, scan

    with handle_errors():
        found = scan(_options(app).folders)
        skill = next((s for s in found.skills if s.name == name), None)
        if skill is None:
            raise click.ClickException(
                f"no skill {name!r}; found: {', '.join(s.name for s in found.skills) or 'none'}"
            )
        if as_json:
            emit_json(
                {
                    "name": skill.name,
                    "description": skill.description,
                    "path": str(skill.path),
                    "instructions": skill.instructions,
                    "resources": skill_resources(skill),
                }
            )
        else:
            click.echo(loaded_text(skill))
