"""Claude Code plugins installed with `agentframe cc-plugins add PATH`.

A plugin is a folder with `.claude-plugin/plugin.json`; a marketplace is a folder with
`.claude-plugin/marketplace.json` listing plugins (those with a local `source` are added; a
git or URL source is never fetched). The registry records each plugin's name and folder in
`cc-plugins.json` under agentframe's data folder: nothing is copied, so a plugin is used as its
folder is now.

What a plugin offers, from its folder and the component fields of plugin.json (custom paths
add to the default folders, as in Claude Code): `commands/` (slash commands, `/plugin:name`),
`agents/` (agent definitions, through the `claude` agent loader), `skills/` (skill folders of
those agents), `hooks/hooks.json` and `.mcp.json` (listed by `cc-plugins list`). A component
path that leads outside the plugin's folder, its links resolved, refuses the plugin, naming
plugin.json and the field; so does, at `add`, any link in the folder that leads out of it,
named (later commands would skip what it holds).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentframe_core import (
    AgentframeError,
    FileReadError,
    PathEscapeError,
    atomic_write,
    confined,
    data_dir,
    read_text_file,
)

__all__ = [
    "InstalledPlugin",
    "PluginError",
    "PluginParts",
    "add_plugins",
    "installed_plugins",
    "plugin_parts",
    "registry_path",
    "remove_plugin",
]

log = logging.getLogger(__name__)

MANIFEST = ".claude-plugin/plugin.json"
MARKETPLACE = ".claude-plugin/marketplace.json"
#: Bytes of a plugin.json, marketplace.json or the registry.
JSON_LIMIT = 1 << 20
#: Claude Code's plugin names: kebab-case.
_NAME = re.compile(r"^[a-z0-9]+(?:[-_.][a-z0-9]+)*$")
#: Files and folders of one plugin looked at for links that lead out of it, at `add`.
MAX_ENTRIES = 20_000
#: plugin.json fields that name files or folders of the plugin.
PATH_FIELDS = ("commands", "agents", "skills", "hooks", "mcpServers", "outputStyles")


class PluginError(AgentframeError):
    """A plugin or marketplace that cannot be used: `file: field: reason`."""

    def __init__(self, reason: str, *, file: Path | None = None, field: str = "") -> None:
        self.reason, self.file, self.field = reason, file, field
        where = f"{file}: " if file else ""
        super().__init__(f"{where}{field + ': ' if field else ''}{reason}")


@dataclass(frozen=True, slots=True)
class InstalledPlugin:
    """One installed plugin: its name (the namespace of its commands) and its folder."""

    name: str
    root: Path
    #: The marketplace it was added from, if any.
    marketplace: Path | None = None
    #: The marketplace entry standing for a plugin.json the plugin does not have.
    entry: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class PluginParts:
    """What one plugin offers, every path inside its folder."""

    commands: list[Path] = field(default_factory=list)
    agents: list[Path] = field(default_factory=list)
    skills: list[Path] = field(default_factory=list)
    hooks: list[Path] = field(default_factory=list)
    mcp: list[Path] = field(default_factory=list)
    #: `hooks` or `mcpServers` given inline in plugin.json (not a file of their own).
    inline: dict[str, Any] = field(default_factory=dict)


def registry_path() -> Path:
    return data_dir() / "cc-plugins.json"


def installed_plugins() -> list[InstalledPlugin]:
    """The installed plugins, in the order they were added ([] when none; an unreadable
    registry is logged and reads as none, so it never breaks agent or command lookups)."""
    try:
        return _read_registry()
    except PluginError as err:
        log.warning("%s", err)
        return []


def _read_registry() -> list[InstalledPlugin]:
    path = registry_path()
    if not path.exists():
        return []
    data = _json(path, "plugin registry")
    records = data.get("plugins") if isinstance(data, dict) else None
    if not isinstance(records, list):
        raise PluginError("not a plugin registry (no `plugins` list)", file=path)
    found = []
    for record in records:
        if isinstance(record, dict) and isinstance(record.get("name"), str):
            market, entry = record.get("marketplace"), record.get("entry")
            found.append(
                InstalledPlugin(
                    record["name"],
                    Path(str(record.get("root"))),
                    Path(market) if isinstance(market, str) else None,
                    entry if isinstance(entry, dict) else {},
                )
            )
    return found


def _json(path: Path, what: str) -> Any:
    try:
        text = read_text_file(path, JSON_LIMIT, what)
    except FileReadError as err:
        raise PluginError(f"cannot read: {err.reason}", file=path) from None
    try:
        return json.loads(text)
    except ValueError as err:
        line = getattr(err, "lineno", None)
        where = Path(f"{path}:{line}") if line else path
        raise PluginError(f"not valid JSON: {getattr(err, 'msg', err)}", file=where) from None


# -- reading a plugin --------------------------------------------------------------------------


def read_manifest(root: Path, entry: dict[str, Any] | None = None) -> dict[str, Any]:
    """plugin.json (or the marketplace entry standing for it), checked: a kebab-case
    `name`, component paths inside `root`."""
    path = root / MANIFEST
    if path.exists() or not entry:
        data = _json(path, "plugin manifest")
    else:
        data, path = entry, root
    if not isinstance(data, dict):
        raise PluginError("a plugin manifest must be a JSON object", file=path)
    name = data.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        raise PluginError(f"{name!r} is not a plugin name (kebab-case)", file=path, field="name")
    for key in PATH_FIELDS:
        for value in _paths(data.get(key)):
            _inside(root, value, path, key)
    return data


def _paths(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [item for item in value if isinstance(item, str)]
    return []


def _inside(root: Path, value: str, manifest: Path, key: str) -> Path:
    if Path(value).is_absolute():
        raise PluginError(
            f"{value!r}: must be a path relative to the plugin's folder (./...)",
            file=manifest,
            field=key,
        )
    try:
        return confined(root / value, [root], "plugin path")
    except PathEscapeError as err:
        raise PluginError(f"{value!r}: {err.reason}", file=manifest, field=key) from None


def plugin_parts(plugin: InstalledPlugin) -> PluginParts:
    """The plugin's commands, agents, skills, hooks and MCP files as they are now; a
    plugin.json that became invalid since it was added is a `PluginError`."""
    root = plugin.root
    data = read_manifest(root, plugin.entry)
    manifest = root / MANIFEST
    parts = PluginParts()

    def gather(key: str, default: str, into: list[Path]) -> None:
        found = (root / default).exists() or (root / default).is_symlink()
        candidates = [_inside(root, default, manifest, key)] if found else []
        candidates += [_inside(root, value, manifest, key) for value in _paths(data.get(key))]
        into.extend(dict.fromkeys(c.resolve() for c in candidates))

    gather("commands", "commands", parts.commands)
    gather("skills", "skills", parts.skills)
    gather("hooks", "hooks/hooks.json", parts.hooks)
    gather("mcpServers", ".mcp.json", parts.mcp)
    agents: list[Path] = []
    gather("agents", "agents", agents)
    for path in agents:
        files = sorted(path.glob("*.md")) if path.is_dir() else [path]
        parts.agents.extend(
            _inside(root, str(f.relative_to(root)), manifest, "agents") for f in files
        )
    parts.inline.update(
        {k: data[k] for k in ("hooks", "mcpServers") if isinstance(data.get(k), dict)}
    )
    return parts


# -- adding and removing -----------------------------------------------------------------------


def plugin_mcp_servers() -> list[tuple[str, Path, list[Path], dict[str, Any]]]:
    """What each installed plugin declares of MCP servers (the `agentframe_plugin_mcp_servers`
    hook): its name, folder, `.mcp.json` files and plugin.json `mcpServers`, unread and
    unchecked (agentframe-mcp checks them). A plugin that cannot be read is logged and left
    out: it never hides the others' servers."""
    found = []
    for plugin in installed_plugins():
        try:
            parts = plugin_parts(plugin)
        except PluginError as err:
            log.warning("Claude Code plugin %s: its MCP servers are left out: %s", plugin.name, err)
            continue
        inline = parts.inline.get("mcpServers")
        servers = inline if isinstance(inline, dict) else {}
        found.append((plugin.name, plugin.root, parts.mcp, servers))
    return found


def add_plugins(path: Path) -> tuple[list[InstalledPlugin], list[str]]:
    """Add the plugin at `path`, or every local plugin of the marketplace at `path`. Returns
    what was added and what was skipped (and why). A plugin whose name another folder holds
    already is refused: remove that one first."""
    root = path.expanduser().resolve()
    if (root / MANIFEST).exists():
        check_links(root)
        found = [InstalledPlugin(read_manifest(root)["name"], root)]
        skipped: list[str] = []
    elif (root / MARKETPLACE).exists():
        found, skipped = _marketplace(root)
    else:
        raise PluginError(f"no {MANIFEST} or {MARKETPLACE} here", file=root)
    with _locked() as plugins:
        for plugin in found:
            other = next((p for p in plugins if p.name == plugin.name), None)
            if other is not None and other.root != plugin.root:
                raise PluginError(
                    f"a plugin named {plugin.name!r} is installed from {other.root}; "
                    f"`agentframe cc-plugins remove {plugin.name}` first",
                    file=plugin.root,
                )
        names = {plugin.name for plugin in found}
        plugins[:] = [p for p in plugins if p.name not in names] + found
    return found, skipped


def _marketplace(root: Path) -> tuple[list[InstalledPlugin], list[str]]:
    path = root / MARKETPLACE
    data = _json(path, "marketplace")
    entries = data.get("plugins") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise PluginError("a marketplace needs a `plugins` list", file=path, field="plugins")
    base_value = (data.get("metadata") or {}).get("pluginRoot") if isinstance(data, dict) else None
    base = _inside(root, base_value, path, "metadata.pluginRoot") if base_value else root
    found, skipped = [], []
    for index, entry in enumerate(entries):
        name = entry.get("name") if isinstance(entry, dict) else None
        source = entry.get("source") if isinstance(entry, dict) else None
        if not isinstance(source, str):
            skipped.append(f"{name or f'plugins[{index}]'}: not a local source (never fetched)")
            continue
        folder = _inside(base, source, path, f"plugins[{index}].source")
        # Without a plugin.json the entry is the manifest, as in Claude Code.
        standin = None if (folder / MANIFEST).exists() else entry
        try:
            check_links(folder)
            manifest = read_manifest(folder, standin)
        except PluginError as err:
            skipped.append(str(err))
            continue
        found.append(InstalledPlugin(manifest["name"], folder, root, standin or {}))
    return found, skipped


def check_links(root: Path) -> None:
    """A `PluginError` naming the first link under `root` that leads out of it (or nowhere);
    links to folders are not followed. At most `MAX_ENTRIES` entries are looked at."""
    seen = 0
    for top, dirs, files in os.walk(root):
        for name in sorted([*dirs, *files]):
            seen += 1
            if seen > MAX_ENTRIES:
                raise PluginError(f"more than {MAX_ENTRIES} files and folders", file=root)
            entry = Path(top) / name
            if not entry.is_symlink():
                continue
            try:
                confined(entry, [root], "plugin file")
            except PathEscapeError as err:
                raise PluginError(
                    f"a link out of the plugin's folder: {err.reason}", file=entry
                ) from None
            if not entry.exists():
                raise PluginError("a link to nothing", file=entry)


def remove_plugin(name: str) -> InstalledPlugin:
    with _locked() as plugins:
        gone = next((p for p in plugins if p.name == name), None)
        if gone is None:
            known = ", ".join(p.name for p in plugins) or "none"
            raise PluginError(f"no installed plugin {name!r}; installed: {known}")
        plugins.remove(gone)
    return gone


@contextlib.contextmanager
def _locked() -> Iterator[list[InstalledPlugin]]:
    """The registry's plugins, to change in place; written back whole, under a lock, so
    two `cc-plugins add` at once lose neither."""
    path = registry_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_suffix(".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        plugins = _read_registry()
        yield plugins
        records = [
            {
                "name": p.name,
                "root": str(p.root),
                **({"marketplace": str(p.marketplace)} if p.marketplace else {}),
                **({"entry": p.entry} if p.entry else {}),
            }
            for p in plugins
        ]
        atomic_write(path, json.dumps({"plugins": records}, indent=1) + "\n")
