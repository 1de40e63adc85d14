"""Claude Code's settings files: where they are, and reading one safely.

The user's `~/.claude/settings.json`, the project's `.claude/settings.json` and
`.claude/settings.local.json` (the project folder is `$CLAUDE_PROJECT_DIR`, else the working
folder; with a config from elsewhere, `--config`, the working folder's files are read only when
`$CLAUDE_PROJECT_DIR` names it), and hooks files of Claude Code plugins (`hooks/hooks.json`,
with the plugin's root for `${CLAUDE_PLUGIN_ROOT}`): a list of `SettingsSource`, so installed
plugins add theirs. A file must be a regular file of at most `MAX_SETTINGS_BYTES` inside its
own folder (the project, `~/.claude`, the plugin) once links are resolved; anything else is
refused, named.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentframe_core import (
    AgentframeError,
    FileReadError,
    PathEscapeError,
    config_in_project,
    confined,
    read_text_file,
)

__all__ = [
    "MAX_SETTINGS_BYTES",
    "SettingsError",
    "SettingsSource",
    "anything_to_read",
    "default_sources",
    "plugin_sources",
    "project_dir",
    "project_files_apply",
    "read_settings",
]

MAX_SETTINGS_BYTES = 1024 * 1024


class SettingsError(AgentframeError):
    """A settings or hooks file that cannot be used; the message names it."""


@dataclass(frozen=True, slots=True)
class SettingsSource:
    """One settings or hooks file: the folder it must stay in, and the plugin it belongs to
    (its root is `${CLAUDE_PLUGIN_ROOT}` in its hooks' commands)."""

    path: Path
    folder: Path
    scope: str = "project"
    plugin_root: Path | None = None

    @property
    def base(self) -> Path:
        """Where a rule's `/path` starts: the folder holding `.claude` (or the plugin)."""
        if self.plugin_root is not None:
            return self.plugin_root
        parent = self.path.parent
        return parent.parent if parent.name == ".claude" else parent


def project_dir() -> Path:
    """`$CLAUDE_PROJECT_DIR`, else the working folder."""
    return Path(os.environ.get("CLAUDE_PROJECT_DIR") or Path.cwd())


def project_files_apply(config_file: Path | None) -> bool:
    """Are the project folder's settings files read? Yes when `$CLAUDE_PROJECT_DIR` names the
    folder, or when the config in force is the working folder's own (none, or found there);
    a config from elsewhere does not pull in the working folder's `.claude/` unasked."""
    return bool(os.environ.get("CLAUDE_PROJECT_DIR")) or config_in_project(config_file, Path.cwd())


def default_sources(
    project: Path, home: Path, *, with_project: bool = True
) -> list[SettingsSource]:
    """The user's, the project's and the project's local settings, in Claude Code's order of
    precedence from lowest (the local file's `defaultMode` wins); only the user's when
    `with_project` is False."""
    user = home / ".claude"
    found = [SettingsSource(user / "settings.json", user, "user")]
    if with_project:
        found += [
            SettingsSource(project / ".claude" / "settings.json", project, "project"),
            SettingsSource(project / ".claude" / "settings.local.json", project, "local"),
        ]
    return found


def anything_to_read(config_file: Path | None) -> bool:
    """Is there a settings file or a plugin hooks file to read, or an agent file's rule to
    enforce? A few `stat`s: the runtime hooks are imported only when there is."""
    sources = default_sources(
        project_dir(), Path.home(), with_project=project_files_apply(config_file)
    )
    if any(s.path.exists() or s.path.is_symlink() for s in sources):
        return True
    rules = sys.modules.get("agentframe_compat.agentrules")
    return (rules is not None and bool(rules.recorded())) or bool(plugin_sources())


def plugin_sources() -> list[SettingsSource]:
    """The hooks files of the installed Claude Code plugins (`agentframe cc-plugins add`),
    each confined to its plugin's folder, with `${CLAUDE_PLUGIN_ROOT}` set to it for its
    hooks. A plugin whose plugin.json became invalid is logged and left out."""
    from .plugins import PluginError, installed_plugins, plugin_parts

    found = []
    for plugin in installed_plugins():
        try:
            hooks = plugin_parts(plugin).hooks
        except PluginError as err:
            logging.getLogger("agentframe.compat").warning("%s", err)
            continue
        root = plugin.root.resolve()
        found += [SettingsSource(path, root, "plugin", root) for path in hooks]
    return found


def read_settings(source: SettingsSource) -> dict[str, Any] | None:
    """The JSON object of `source`, None when it does not exist; `SettingsError` naming the
    file when it is not a regular file in its folder, too large, or not a JSON object."""
    path = source.path
    if not path.exists() and not path.is_symlink():
        return None
    try:
        real = confined(path, [source.folder], "settings file")
        text = read_text_file(real, MAX_SETTINGS_BYTES, "settings file")
    except (PathEscapeError, FileReadError) as err:
        raise SettingsError(f"{path}: refused: {err}") from None
    try:
        data = json.loads(text)
    except ValueError as err:
        raise SettingsError(f"{path}: not JSON: {err}") from None
    if not isinstance(data, dict):
        raise SettingsError(f"{path}: a settings file is a JSON object, not {type(data).__name__}")
    return data
