"""`agentframe agents list|show|check`: the agent definitions visible from here."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
import yaml

from .app import App, emit_json, handle_errors, pass_app, utf8_argument, warn

if TYPE_CHECKING:
    from ..assembly.catalog import AgentCatalog
    from ..contract.configtypes import Config
    from ..contract.definition import AgentDefinition
    from ..contract.errors import AgentDefinitionError
    from ..contract.tools import Tool


@click.group()
def agents() -> None:
    """List, show and check agent definitions (Markdown files with YAML frontmatter)."""


# -- list ---------------------------------------------------------------------------------------


@agents.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for machines.")
@pass_app
def list_(app: App, as_json: bool) -> None:
    """Every agent visible from here: name, description, where it comes from, and the
    definitions of the same name it shadows. Broken files are reported on stderr."""
    with handle_errors():
        catalog = _catalog(app)
        if as_json:
            emit_json(
                {
                    "agents": [
                        {
                            **_origin(entry.definition),
                            "description": entry.definition.description,
                            "warnings": list(entry.definition.warnings),
                            "loader": entry.loader,
                            "shadows": [_origin(d) for d in entry.shadows],
                            "replaces_builtin": entry.replaces_builtin,
                        }
                        for entry in catalog.entries.values()
                    ],
                    "errors": [_error_json(e) for error in catalog.errors for e in error.all()],
                    "loader_failures": [
                        {"loader": f.loader, "error": f.error} for f in catalog.failures
                    ],
                }
            )
            return
        if not catalog.entries:
            click.echo("no agent definitions found")
        for entry in catalog.entries.values():
            definition = entry.definition
            click.echo(
                f"{click.style(definition.name, bold=True)}  [{definition.source}]  "
                f"{_summary(definition.description)}"
            )
            click.echo(f"    {definition.path or '(defined in code)'}")
            if definition.warnings:
                count = len(definition.warnings)
                click.echo(
                    f"    {count} warning{'s' if count > 1 else ''}: "
                    f"agentframe agents show {definition.name}"
                )
            for shadowed in entry.shadows:
                if shadowed.source == "builtin":
                    click.echo(f"    replaces the built-in {shadowed.name} ({shadowed.path})")
                else:
                    click.echo(f"    shadows [{shadowed.source}] {shadowed.path or '(code)'}")
        _report_skipped(catalog)


# -- show ---------------------------------------------------------------------------------------


@agents.command()
@click.argument("name", callback=utf8_argument)
@click.option("--json", "as_json", is_flag=True, help="Print JSON for machines.")
@pass_app
def show(app: App, name: str, as_json: bool) -> None:
    """The resolved definition of NAME and its fully assembled system prompt, with the tools
    of the configured stack (or none, saying why, when the stack cannot be built)."""
    from ..contract.errors import AgentDefinitionError
    from ..engine.prompt import assemble_system_prompt

    with handle_errors():
        catalog = _catalog(app)
        agent = catalog.get(name)
        tools, why_not = _stack_tools(app, agent)
        problem: AgentDefinitionError | None = None
        if tools is not None:
            try:
                agent.check_overrides(tools)
            except AgentDefinitionError as err:
                problem = err
        names = agent.tool_names(t.name for t in tools or [])
        prompt = assemble_system_prompt(agent, names, cwd=Path.cwd())
        entry = catalog.entries[name]
        if as_json:
            emit_json(
                {
                    **_origin(agent),
                    "loader": entry.loader,
                    "shadows": [_origin(d) for d in entry.shadows],
                    "definition": agent.model_dump(mode="json", by_alias=True),
                    "warnings": list(agent.warnings),
                    "tools": names if tools is not None else None,
                    "tools_note": why_not,
                    "errors": [_error_json(e) for e in problem.all()] if problem else [],
                    "system_prompt": prompt,
                }
            )
        else:
            click.secho(f"# {agent.name}", bold=True)
            click.echo(f"# source: {agent.source} ({entry.loader} loader)")
            click.echo(f"# path: {agent.path or '(defined in code)'}")
            for shadowed in entry.shadows:
                click.echo(f"# shadows: [{shadowed.source}] {shadowed.path or '(code)'}")
            definition = agent.model_dump(mode="json", by_alias=True, exclude={"prompt"})
            click.echo(yaml.safe_dump(definition, sort_keys=False, allow_unicode=True).rstrip())
            for note in agent.warnings:
                warn(f"warning: {note}")
            if tools is None:
                warn(f"note: {why_not}")
            else:
                shown = ", ".join(f"{c} as {w}" if c != w else c for c, w in names.items())
                click.echo(f"# tools this agent can use: {shown or 'none'}")
            if problem is not None:
                for error in problem.all():
                    click.secho(f"error: {error}", fg="red", err=True)
            click.secho("\n# system prompt", bold=True)
            click.echo(prompt, nl=False)
        if problem is not None:
            raise SystemExit(1)


def _stack_tools(app: App, agent: AgentDefinition) -> tuple[list[Tool] | None, str]:
    """The tools of the configured stack, or None and why not."""
    from ..contract.protocols import RunContext

    try:
        stack = app.stack()
    except Exception as err:  # any failure just means: no tools to show, and we say why
        reason = str(err).strip().replace("\n", "; ")
        return None, (
            f"the configured stack could not be built ({reason}); "
            "the prompt below is assembled as if no tool were available"
        )

    async def collect() -> list[Tool]:
        ctx = RunContext(session_id="agents-show", stack=stack, agent=agent)
        try:
            found: list[Tool] = []
            for dispatcher in stack.tools:
                found.extend(await dispatcher.tools(ctx))
            return found
        finally:
            await stack.aclose()

    try:
        return asyncio.run(collect()), ""
    except Exception as err:
        return None, (
            f"listing the stack's tools failed ({type(err).__name__}: {err}); "
            "the prompt below is assembled as if no tool were available"
        )


# -- check --------------------------------------------------------------------------------------


@agents.command()
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print JSON for machines.")
@pass_app
def check(app: App, paths: tuple[Path, ...], as_json: bool) -> None:
    """Validate definition files (default: every one visible from here): parse errors, wrong
    types, missing fields, bad overrides, template errors, missing skills. Unknown keys are
    warnings. Exits 1 when any file has an error."""
    with handle_errors():
        results = _check_paths(app, paths) if paths else _check_visible(app)
    failed = any(errors for _, _, errors in results)
    if as_json:
        emit_json(
            {
                "ok": not failed,
                "files": [
                    {
                        "path": str(path) if path else None,
                        "name": definition.name if definition else None,
                        "errors": [_error_json(e) for e in errors],
                        "warnings": list(definition.warnings) if definition else [],
                    }
                    for path, definition, errors in results
                ],
            }
        )
    else:
        warnings = 0
        for path, definition, errors in results:
            if errors:
                for error in errors:
                    click.secho(f"error: {error}", fg="red")
            elif definition is not None:
                click.secho(f"ok: {path or '(code)'} ({definition.name})", fg="green")
            for note in definition.warnings if definition else ():
                warnings += 1
                click.secho(f"warning: {note}", fg="yellow")
        bad = sum(1 for _, _, errors in results if errors)
        click.echo(f"{len(results)} file(s) checked: {bad} with errors, {warnings} warning(s)")
    if failed:
        raise SystemExit(1)


#: (file, its definition when it parsed, its errors)
CheckResult = tuple[Path | None, "AgentDefinition | None", "list[AgentDefinitionError]"]


def _check_visible(app: App) -> list[CheckResult]:
    catalog = _catalog(app, quiet=True)
    results: list[CheckResult] = [(e.file, None, list(e.all())) for e in catalog.errors]
    for entry in catalog.entries.values():
        for definition in (entry.definition, *entry.shadows):
            results.append((definition.path, definition, _prompt_errors(definition)))
    from ..contract.errors import AgentDefinitionError

    for failure in catalog.failures:
        error = AgentDefinitionError(f"loader {failure.loader!r} failed: {failure.error}")
        results.append((None, None, [error]))
    return sorted(results, key=lambda r: str(r[0]))


def _check_paths(app: App, paths: tuple[Path, ...]) -> list[CheckResult]:
    from ..assembly.catalog import build_loaders
    from ..contract.errors import AgentDefinitionError
    from ..engine.definitions.loader import FolderLoader
    from ..parts.agentloader import AgentframeLoader

    named = build_loaders(app.host, _config(app, quiet=True))[0]
    loaders = [loader for _, loader in named if isinstance(loader, FolderLoader)]
    files: list[Path] = []
    for path in paths:
        files.extend(sorted(path.glob("*.md")) if path.is_dir() else [path])
    results: list[CheckResult] = []
    for file in files:
        # the loader whose folders have this file's folder name reads it in its format
        owner = next((loader for loader in loaders if loader.owns(file)), AgentframeLoader())
        try:
            definition = owner.load_file(file, "project")
        except AgentDefinitionError as err:
            results.append((file, None, list(err.all())))
            continue
        results.append((file, definition, _prompt_errors(definition)))
    return results


def _prompt_errors(definition: AgentDefinition) -> list[AgentDefinitionError]:
    """Assemble the prompt (with no tools) to find render errors and missing skills."""
    from ..contract.errors import AgentDefinitionError
    from ..engine.prompt import assemble_system_prompt

    try:
        assemble_system_prompt(definition, {}, cwd=Path.cwd())
    except AgentDefinitionError as err:
        return list(err.all())
    return []


# -- shared -------------------------------------------------------------------------------------


def _config(app: App, *, quiet: bool = False) -> Config | None:
    """The config in force for its `agents:` folders; None (with a warning) when there is no
    config file or it does not load."""
    from ..contract.errors import ConfigError

    if app.config_path() is None:
        return None
    try:
        return app.config()
    except ConfigError as err:
        if not quiet:
            warn(f"warning: the config does not load, its agents: folders are skipped:\n{err}")
        return None


def _catalog(app: App, *, quiet: bool = False) -> AgentCatalog:
    from ..assembly.catalog import find_agents

    return find_agents(app.host, _config(app, quiet=quiet), Path.cwd())


def _report_skipped(catalog: AgentCatalog) -> None:
    for error in catalog.errors:
        for problem in error.all():
            warn(f"skipped: {problem}")
    for failure in catalog.failures:
        warn(f"loader {failure.loader!r} failed: {failure.error}")


def _origin(definition: AgentDefinition) -> dict[str, Any]:
    path = definition.path
    return {
        "name": definition.name,
        "source": definition.source,
        "folder": str(path.parent) if path else None,
        "path": str(path) if path else None,
    }


def _error_json(error: AgentDefinitionError) -> dict[str, Any]:
    return {
        "type": type(error).__name__,
        "file": str(error.file) if error.file else None,
        "line": error.line,
        "field": error.field or None,
        "message": error.message,
    }


def _summary(text: str, width: int = 70) -> str:
    first = " ".join(text.split())
    return first if len(first) <= width else first[: width - 1] + "…"
