"""A project's Claude Code settings, merged: its hooks and its permission rules.

`load_project(sources)` reads every settings source (`settings.default_sources`, then any
plugin hooks files the caller adds) and merges them as Claude Code does: hooks of every file
run; rules of every file count; the last file naming `defaultMode` sets the mode. The result
is kept while no file changed (size and modification time), so a tool call costs a few
`stat`s. A file that cannot be used makes `error` name it: the runtime hooks then refuse the
run and every tool call rather than run without its rules.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from pathlib import Path

from . import settings
from .hooks import Hook, parse_hooks
from .permissions import MODES, Rule, RuleError, Rules, parse_rule
from .settings import (
    SettingsError,
    SettingsSource,
    default_sources,
    project_dir,
    project_files_apply,
    read_settings,
)

__all__ = ["ClaudeProject", "load_project", "project_sources"]

log = logging.getLogger("agentframe.claude-hooks")

#: Set to 0 to have agentframe ignore Claude Code settings files (hooks and rules).
SETTINGS_ENV = "AGENTFRAME_CLAUDE_SETTINGS"


@dataclass(slots=True)
class ClaudeProject:
    """What the settings files say for one project folder."""

    folder: Path
    hooks: list[Hook] = field(default_factory=list)
    #: None when no file has a `permissions` block: tools run as agentframe runs them.
    rules: Rules | None = None
    error: str | None = None
    #: What the project's own files would run or allow, one line each: the folder must be
    #: trusted first (`agentframe_core.require_trust`). The user's and plugins' files need not.
    needs_trust: list[str] = field(default_factory=list)
    #: Files whose Claude Code `sandbox.enabled` is true (`sandboxing.note_unheeded`).
    sandbox_asked: list[Path] = field(default_factory=list)

    def hooks_for(self, event: str, value: str | list[str] | None = None) -> list[Hook]:
        """The event's hooks whose matcher accepts `value` (any of several spellings),
        each command once (Claude Code runs identical commands once)."""
        values = value if isinstance(value, list) else [value]
        seen: set[str] = set()
        found = []
        for hook in self.hooks:
            if hook.event == event and hook.command not in seen and any(map(hook.matches, values)):
                seen.add(hook.command)
                found.append(hook)
        return found


def project_sources(config_file: Path | None) -> tuple[Path, list[SettingsSource]]:
    """The project folder and every settings source that applies to it under the config
    file in force (`settings.project_files_apply`)."""
    folder = project_dir().resolve()
    with_project = project_files_apply(config_file)
    sources = default_sources(folder, Path.home(), with_project=with_project)
    return folder, [*sources, *settings.plugin_sources()]


_CACHE: dict[tuple[Path, tuple[object, ...]], ClaudeProject] = {}


def load_project(folder: Path, sources: list[SettingsSource]) -> ClaudeProject:
    """The merged settings of `sources`, read again only when one of them changed."""
    if os.environ.get(SETTINGS_ENV, "1").strip() in ("0", "false", "no", "off"):
        return ClaudeProject(folder)
    key = (folder, tuple(_signature(source.path) for source in sources))
    cached = _CACHE.get(key)
    if cached is None:
        cached = _read(folder, sources)
        _CACHE.clear()
        _CACHE[key] = cached
    return cached


def _signature(path: Path) -> object:
    try:
        info = path.lstat()
    except OSError:
        return None
    return (str(path), info.st_mtime_ns, info.st_size, info.st_ino)


def _read(folder: Path, sources: list[SettingsSource]) -> ClaudeProject:
    project = ClaudeProject(folder)
    allow: list[Rule] = []
    ask: list[Rule] = []
    deny: list[Rule] = []
    mode, seen_rules = "default", False
    try:
        for source in sources:
            data = read_settings(source)
            if data is None:
                continue
            hooks = parse_hooks(data, source)
            project.hooks.extend(hooks)
            sandbox = data.get("sandbox")
            if isinstance(sandbox, dict) and sandbox.get("enabled") is True:
                project.sandbox_asked.append(source.path)
            permissions = data.get("permissions")
            own = source.scope in _PROJECT_SCOPES
            if own:
                project.needs_trust += [
                    f"{h.event} hook `{h.command}` ({h.source.path})" for h in hooks
                ]
            if permissions is None or source.plugin_root is not None:
                continue
            if not isinstance(permissions, dict):
                raise SettingsError(f"{source.path}: permissions: an object")
            if own:
                project.needs_trust += _grants(permissions, source)
            seen_rules = True
            for key, into in (("allow", allow), ("ask", ask), ("deny", deny)):
                into.extend(_rules(permissions.get(key, []), key, source))
            named = permissions.get("defaultMode")
            if named is not None:
                if named not in MODES:
                    raise SettingsError(
                        f"{source.path}: permissions.defaultMode: {named!r} is not one of "
                        + ", ".join(MODES)
                    )
                mode = named
    except SettingsError as err:
        log.warning("%s", err)
        project.error = str(err)
    if seen_rules:
        project.rules = Rules(allow, ask, deny, mode)
    return project


#: Settings files a project folder supplies (a cloned repository's): they need trust.
_PROJECT_SCOPES = ("project", "local")
#: Modes that let tools run unasked.
_GRANTING_MODES = ("acceptEdits", "dontAsk", "bypassPermissions")


def _grants(permissions: dict[str, object], source: SettingsSource) -> list[str]:
    """The project's `allow` rules and a mode that runs tools unasked: a cloned repository
    must not grant itself `Bash` before its folder is trusted."""
    allow = permissions.get("allow")
    found = [f"allow rule {r} ({source.path})" for r in allow] if isinstance(allow, list) else []
    if permissions.get("defaultMode") in _GRANTING_MODES:
        found.append(f"defaultMode {permissions['defaultMode']} ({source.path})")
    return found


def _rules(value: object, key: str, source: SettingsSource) -> list[Rule]:
    if not isinstance(value, list):
        raise SettingsError(f"{source.path}: permissions.{key}: a list of rules")
    rules = []
    for i, text in enumerate(value):
        try:
            rules.append(parse_rule(text, str(source.path), source.base))
        except RuleError as err:
            raise SettingsError(f"{source.path}: permissions.{key}[{i}]: {err}") from None
    return rules
