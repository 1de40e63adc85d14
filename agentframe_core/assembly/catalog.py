"""Every agent definition visible from a folder: all loaders, deduplicated by priority.

Ranking, best first, across and within loaders:
  1. level: `project`, then `user`, then `config`, then definitions built in code, then
     `builtin`;
  2. for project definitions, nearness: the folder nearest the working directory wins;
  3. loader priority (agentframe's own loader ranks above the compat loaders);
  4. the order the loader returned them in.
The best definition of a name wins; the others are kept as what it shadows.

How loaders get the config's `agents:` folders: a loader whose options model has a `folders`
field is built with `{"folders": [...]}` from the config; any other loader with its default
options. A `ScanningLoader` reports the files it skipped; one with only `discover(cwd)` is
trusted to log them.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..contract.definition import AgentDefinition
from ..contract.errors import AgentDefinitionError, UnknownAgentError
from ..contract.protocols import AgentLoader, AgentScan, PrioritizedLoader, ScanningLoader
from ..contract.registry import Kind

if TYPE_CHECKING:
    from ..contract.configtypes import Config
    from .plugins import PluginHost

__all__ = [
    "LEVELS",
    "AgentCatalog",
    "CatalogEntry",
    "LoaderFailure",
    "build_loaders",
    "catalog_from_loaders",
    "find_agents",
]

log = logging.getLogger(__name__)

#: Levels, best first. Unknown levels rank as `code`.
LEVELS = ("project", "user", "config", "code", "builtin")


@dataclass(frozen=True, slots=True)
class CatalogEntry:
    definition: AgentDefinition
    #: The registered name of the loader that found it.
    loader: str
    #: Lower-ranked definitions of the same name, best first.
    shadows: tuple[AgentDefinition, ...] = ()

    @property
    def replaces_builtin(self) -> bool:
        """A file of the project or the user replaces a built-in agent of this name (the
        default `general-purpose`, say): worth saying, it changes every run that uses it."""
        return self.definition.source != "builtin" and any(
            shadowed.source == "builtin" for shadowed in self.shadows
        )


@dataclass(frozen=True, slots=True)
class LoaderFailure:
    """A loader that could not be built or raised while discovering."""

    loader: str
    error: str


@dataclass(frozen=True, slots=True)
class AgentCatalog:
    entries: dict[str, CatalogEntry] = field(default_factory=dict)
    #: Files that were skipped, each with file and line.
    errors: list[AgentDefinitionError] = field(default_factory=list)
    failures: list[LoaderFailure] = field(default_factory=list)

    @property
    def definitions(self) -> list[AgentDefinition]:
        """The winning definition of every name, sorted by name."""
        return [entry.definition for entry in self.entries.values()]

    def names(self) -> list[str]:
        return list(self.entries)

    def get(self, name: str) -> AgentDefinition:
        """The definition named `name`. Raises the file's own error when the only definitions
        of that name are broken, else `UnknownAgentError` listing the known names."""
        entry = self.entries.get(name)
        if entry is not None:
            return entry.definition
        for error in self.errors:
            if error.name == name:
                raise error
        raise UnknownAgentError(name, self.names())

    def shadowed(self, name: str) -> tuple[AgentDefinition, ...]:
        entry = self.entries.get(name)
        return entry.shadows if entry else ()


NamedLoader = tuple[str, AgentLoader]


def find_agents(host: PluginHost, config: Config | None, cwd: Path) -> AgentCatalog:
    """Run every registered AgentLoader from `cwd` (the config's `agents:` folders go to the
    loaders that take `folders`)."""
    loaders, failures = build_loaders(host, config)
    return catalog_from_loaders(loaders, cwd, failures=failures)


def build_loaders(
    host: PluginHost, config: Config | None
) -> tuple[list[NamedLoader], list[LoaderFailure]]:
    """Instantiate every registered loader, highest priority first."""
    loaders: list[NamedLoader] = []
    failures: list[LoaderFailure] = []
    folders = [str(folder) for folder in config.agents] if config else []
    for spec in host.parts(Kind.AGENT_LOADER):
        takes_folders = spec.options is not None and "folders" in spec.options.model_fields
        try:
            loader = spec.build(spec.validate({"folders": folders} if takes_folders else {}))
        except Exception as err:  # one broken plugin must not hide the other loaders
            failures.append(LoaderFailure(spec.name, f"{type(err).__name__}: {err}"))
            continue
        loaders.append((spec.name, loader))
    loaders.sort(key=lambda named: -_priority(named[1]))
    return loaders, failures


def catalog_from_loaders(
    loaders: Sequence[NamedLoader], cwd: Path, *, failures: Sequence[LoaderFailure] = ()
) -> AgentCatalog:
    """Run `loaders` from `cwd` and rank what they find (see the module docstring)."""
    cwd = cwd.absolute()
    ranked: list[tuple[tuple[Any, ...], AgentDefinition, str]] = []
    errors: list[AgentDefinitionError] = []
    failed = list(failures)
    for index, (name, loader) in enumerate(loaders):
        try:
            scan = _scan(loader, cwd)
        except Exception as err:  # a loader that raises is reported, the others still count
            failed.append(LoaderFailure(name, f"{type(err).__name__}: {err}"))
            continue
        errors.extend(scan.errors)
        for position, definition in enumerate(scan.definitions):
            rank = (*_placement(definition, cwd), -_priority(loader), index, position)
            ranked.append((rank, definition, name))
    ranked.sort(key=lambda item: item[0])
    grouped: dict[str, list[tuple[AgentDefinition, str]]] = {}
    for _, definition, name in ranked:
        grouped.setdefault(definition.name, []).append((definition, name))
    entries = {
        agent: CatalogEntry(found[0][0], found[0][1], tuple(d for d, _ in found[1:]))
        for agent, found in sorted(grouped.items())
    }
    for entry in entries.values():
        if entry.replaces_builtin:
            log.info(
                "agent %s: %s replaces the built-in definition",
                entry.definition.name,
                entry.definition.path or f"a {entry.definition.source} definition",
            )
    return AgentCatalog(entries, errors, failed)


def _scan(loader: AgentLoader, cwd: Path) -> AgentScan:
    if isinstance(loader, ScanningLoader):
        result = loader.scan(cwd)
        if isinstance(result, AgentScan):
            return result
    return AgentScan(list(loader.discover(cwd)), [])


def _priority(loader: object) -> int:
    if isinstance(loader, PrioritizedLoader) and isinstance(loader.priority, int):
        return loader.priority
    return 0


def _placement(definition: AgentDefinition, cwd: Path) -> tuple[int, int]:
    """(level, distance): how far up from `cwd` a project definition's folder sits."""
    level = definition.source if definition.source in LEVELS else "code"
    distance = 0
    if level == "project" and definition.path is not None:
        common = Path(os.path.commonpath([definition.path.absolute(), cwd]))
        distance = len(cwd.parts) - len(common.parts)
    return LEVELS.index(level), distance
