"""Finding, loading and isolating plugins.

stevedore finds modules in the entry-point group `agentframe` (with its cached scan) and
imports only the ones asked for; each is registered with one pluggy PluginManager. A plugin
that fails to import, or raises in a hook, is recorded in `failures` and left out: it never
takes down the CLI or a stack that does not use it.

To keep discovery cost flat as plugins are installed, the names each plugin registers are
remembered in a small manifest, one per Python environment (`plugins-<env>.json` in the cache
folder, keyed by `sys.prefix`, so two venvs never overwrite each other's). A record counts only
while its entry point is still installed as recorded; `--help` trusts the manifest without a
scan only while the site-packages folders are unchanged since it was written. Building a stack
imports only the plugins that provide its parts; a name the manifest does not know makes the
host load everything once and rewrite the manifest, so a stale manifest costs time, never
correctness.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib
import json
import os
import sys
import traceback
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pluggy

from ..contract import hookspecs
from ..contract.errors import UnknownPartError
from ..contract.extensions import EXTENSION_POINTS
from ..contract.registry import Kind, PartSpec, Registry
from ..support.files import atomic_write

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

    import click

__all__ = ["BUILTIN", "PluginFailure", "PluginHost", "PluginInfo", "cache_dir"]

GROUP = "agentframe"
BUILTIN = "agentframe"
#: The hookimpl module of the parts that ship with the kernel (memory store, verbatim, ...).
BUILTIN_MODULE = "agentframe_core.parts.plugin"


#: Names the first-party plugins register, and what to install to get them.
FIRST_PARTY: dict[str, tuple[str, str]] = {
    "openai": ("agentframe-adapter-openai", "plugins/adapters/openai"),
    "llamacpp": ("agentframe-llamacpp", "plugins/adapters/llamacpp"),
    "agentfs": ("agentframe-agentfs", "plugins/adapters/agentfs"),
    "sqlite": ("agentframe-store-sqlite", "plugins/stores/sqlite"),
    "postgres": ("agentframe-store-postgres", "plugins/stores/postgres"),
    "shaper": ("agentframe-shaper", "plugins/context/shaper"),
    "load_message": ("agentframe-shaper", "plugins/context/shaper"),
    "memory-bm25": ("agentframe-memory", "plugins/retrievers/memory"),
    "skills": ("agentframe-skills", "plugins/retrievers/skills"),
    "working-memory": ("agentframe-working-memory", "plugins/retrievers/working-memory"),
    "subagents": ("agentframe-subagent", "contrib/subagent"),
    "mcp": ("agentframe-mcp", "contrib/mcp"),
    "serve": ("agentframe-serve", "contrib/serve"),
    "ui": ("agentframe-ui", "contrib/ui"),
    "claude-tools": ("agentframe-claude-tools", "contrib/claude-tools"),
}

#: The `agentframe` commands the first-party plugins add, and what to install to get them.
FIRST_PARTY_COMMANDS: dict[str, tuple[str, str]] = {
    "new": ("agentframe-new", "contrib/new"),
    "llama": ("agentframe-llamacpp", "plugins/adapters/llamacpp"),
    "agent-mode": ("agentframe-agentfs", "plugins/adapters/agentfs"),
    "memory": ("agentframe-memory", "plugins/retrievers/memory"),
    "skills": ("agentframe-skills", "plugins/retrievers/skills"),
    "mcp": ("agentframe-mcp", "contrib/mcp"),
    "serve": ("agentframe-serve", "contrib/serve"),
    "ui": ("agentframe-ui", "contrib/ui"),
    "trace": ("agentframe-otel", "contrib/otel"),
    "kg": ("agentframe-kg", "contrib/kg"),
    "cc-plugins": ("agentframe-compat", "contrib/compat"),
    **dict.fromkeys(
        ["submit", "worker", "status", "result", "send", "cancel"],
        ("agentframe-dbos", "contrib/dbos"),
    ),
}


def cache_dir() -> Path:
    """`$AGENTFRAME_CACHE_DIR`, else `$XDG_CACHE_HOME/agentframe`, else `~/.cache/agentframe`."""
    explicit = os.environ.get("AGENTFRAME_CACHE_DIR")
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "agentframe"


def data_dir() -> Path:
    """Where parts keep what a user would back up (sessions, memories, durable runs):
    `$XDG_DATA_HOME/agentframe`, else `~/.local/share/agentframe`."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "agentframe"


def install_hint(name: str, known: Mapping[str, tuple[str, str]] = FIRST_PARTY) -> str | None:
    """How to get a first-party part (or, with `FIRST_PARTY_COMMANDS`, command) that is not
    installed, or None for unknown names."""
    if name not in known:
        return None
    distribution, folder = known[name]
    return f"pip install {distribution}   (from a checkout: pip install ./{folder})"


@dataclass(frozen=True, slots=True)
class PluginFailure:
    plugin: str
    stage: str  # "import", "register" or the hook's name
    error: str
    traceback: str = ""


@dataclass(slots=True)
class PluginInfo:
    name: str
    module: str
    distribution: str | None = None
    version: str | None = None
    hooks: list[str] = field(default_factory=list)
    registers: dict[str, list[str]] = field(default_factory=dict)
    commands: list[str] = field(default_factory=list)
    errors: list[PluginFailure] = field(default_factory=list)


class PluginHost:
    """One PluginManager, the plugins loaded into it, and the parts they registered."""

    def __init__(self, *, builtins: bool = True) -> None:
        self.pm = pluggy.PluginManager(hookspecs.PROJECT)
        self.pm.add_hookspecs(hookspecs)
        self.registry = Registry()
        self.failures: list[PluginFailure] = []
        self._entry_points: dict[str, EntryPoint] | None = None
        self._attempted: set[str] = set()
        if builtins:
            # Loaded by name, like any entry point: the kernel's own parts sit above the
            # assembly layer (they include the scripted test adapter).
            self.add(BUILTIN, importlib.import_module(BUILTIN_MODULE))

    # -- loading -----------------------------------------------------------------------------

    def entry_points(self) -> dict[str, EntryPoint]:
        """Every entry point of the group, by name, without importing any of them."""
        if self._entry_points is None:
            from stevedore import NamedExtensionManager

            # Naming no extension imports none; the scan itself is stevedore's cached one.
            found = NamedExtensionManager(GROUP, names=[]).list_entry_points()
            self._entry_points = {ep.name: ep for ep in found}
        return self._entry_points

    @property
    def fully_loaded(self) -> bool:
        return self._attempted >= set(self.entry_points())

    def load(self, names: Iterable[str] | None = None) -> None:
        """Import and register the named entry points (all when `names` is None)."""
        wanted = set(self.entry_points()) if names is None else set(names)
        wanted -= self._attempted
        if not wanted:
            return
        self._attempted |= wanted
        from stevedore import NamedExtensionManager

        def failed(_manager: Any, ep: EntryPoint, err: BaseException) -> None:
            self._fail(ep.name, "import", err)

        manager = NamedExtensionManager(
            GROUP, names=sorted(wanted), on_load_failure_callback=failed, name_order=True
        )
        for extension in manager.extensions:
            self.add(extension.name, extension.plugin)
        if names is None:
            self._save_manifest()

    def add(self, name: str, plugin: object) -> None:
        """Register a plugin object (a module of hookimpls) and collect what it registers."""
        try:
            self.pm.register(plugin, name=name)
        except Exception as err:
            self._fail(name, "register", err)
            return
        for point in EXTENSION_POINTS:
            caller = getattr(self.pm.hook, point.hook)
            for impl in caller.get_hookimpls():
                if impl.plugin is plugin:
                    register = self.registry.registrar(point.kind, name)
                    self._call_isolated(name, point.hook, impl.function, register)

    def _call_isolated(
        self, plugin: str, stage: str, function: Callable[..., Any], arg: Any
    ) -> bool:
        try:
            function(arg)
        except Exception as err:
            self._fail(plugin, stage, err)
            return False
        return True

    def _fail(self, plugin: str, stage: str, err: BaseException) -> None:
        text = f"{type(err).__name__}: {err}"
        trace = "".join(traceback.format_exception(err))
        self.failures.append(PluginFailure(plugin, stage, text, trace))

    # -- resolving parts ---------------------------------------------------------------------

    def resolve(self, kind: Kind, name: str) -> PartSpec:
        """The part registered as `name`, importing only the plugins that may provide it."""
        spec = self.registry.get(kind, name)
        if spec is None and not self.fully_loaded:
            candidates = self._manifest_candidates(kind, name)
            if candidates:
                self.load(candidates)
                spec = self.registry.get(kind, name)
            if spec is None:
                self.load()
                spec = self.registry.get(kind, name)
        if spec is None:
            raise UnknownPartError(kind, name, self.registry.names(kind), install_hint(name))
        return spec

    def parts(self, kind: Kind) -> list[PartSpec]:
        """Every part of one kind, across all installed plugins."""
        self.load()
        return self.registry.parts(kind)

    # -- commands ----------------------------------------------------------------------------

    def add_commands(self, cli: click.Group, plugins: Iterable[str] | None = None) -> None:
        """Let plugins add their sub-commands to `cli`, each isolated from the others."""
        chosen = None if plugins is None else set(plugins)
        for impl in self.pm.hook.agentframe_commands.get_hookimpls():
            if chosen is None or impl.plugin_name in chosen:
                self._call_isolated(impl.plugin_name, "agentframe_commands", impl.function, cli)

    def commands_by_plugin(self) -> dict[str, dict[str, str]]:
        """{plugin: {command: short help}}, by running each plugin's hook on a scratch group."""
        import click

        found: dict[str, dict[str, str]] = {}
        for impl in self.pm.hook.agentframe_commands.get_hookimpls():
            scratch = click.Group()
            if self._call_isolated(impl.plugin_name, "agentframe_commands", impl.function, scratch):
                found[impl.plugin_name] = {
                    name: command.get_short_help_str(70)
                    for name, command in scratch.commands.items()
                }
        return found

    # -- reporting ---------------------------------------------------------------------------

    def plugins(self) -> list[PluginInfo]:
        """Every installed plugin (loading all of them) with what it provides and its errors."""
        self.load()
        commands = self.commands_by_plugin()
        loaded = {name: plugin for name, plugin in self.pm.list_name_plugin() if plugin is not None}
        names = [BUILTIN, *sorted(set(self.entry_points()) - {BUILTIN})]
        infos = []
        for name in names:
            plugin = loaded.get(name)
            ep = self.entry_points().get(name)
            module = (
                plugin.__name__ if isinstance(plugin, ModuleType) else (ep.value if ep else "?")
            )
            info = PluginInfo(name=name, module=module)
            info.distribution, info.version = _distribution_of(module)
            if plugin is not None:
                info.hooks = sorted(caller.name for caller in self.pm.get_hookcallers(plugin) or [])
                info.registers = self.registry.by_plugin(name)
                info.commands = sorted(commands.get(name, {}))
            info.errors = [f for f in self.failures if f.plugin == name]
            infos.append(info)
        return infos

    # -- the manifest ------------------------------------------------------------------------

    def manifest(self) -> dict[str, dict[str, Any]]:
        """The manifest's records of the plugins installed now, as they are installed."""
        return installed_records(read_manifest(), self.entry_points())

    def _manifest_candidates(self, kind: Kind, name: str) -> list[str]:
        return [
            plugin
            for plugin, record in self.manifest().items()
            if name in record["registers"].get(kind.value, [])
        ]

    def load_runtime_hooks(self) -> None:
        """Import the plugins that implement runtime hooks (a tool-call gate, say): they take
        part in every run without being a part a config selects."""
        self.load_implementers(hookspecs.RUNTIME_HOOKS)

    def load_implementers(self, hooks: Collection[str]) -> None:
        """Import the plugins the manifest says implement any of `hooks`, and no other."""
        manifest = self.manifest()
        if not set(self.entry_points()) <= set(manifest):
            self.load()  # plugins the manifest has not seen yet: look at them all, once
            return
        wanted = set(hooks)
        self.load(name for name in self.entry_points() if wanted & set(manifest[name]["hooks"]))

    def _save_manifest(self) -> None:
        commands = self.commands_by_plugin()
        loaded = dict(self.pm.list_name_plugin())
        records = {}
        for name, ep in self.entry_points().items():
            plugin = loaded.get(name)
            callers = (self.pm.get_hookcallers(plugin) if plugin is not None else None) or []
            records[name] = {
                "entry_point": ep.value,
                "registers": self.registry.by_plugin(name),
                "commands": commands.get(name, {}),
                "hooks": sorted(caller.name for caller in callers),
                "failed": any(f.plugin == name for f in self.failures),
            }
        path = manifest_path()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            manifest = {"fingerprint": environment_fingerprint(), "plugins": records}
            atomic_write(path, json.dumps(manifest, indent=1, sort_keys=True))
        except OSError:
            pass  # a read-only cache only costs a slower start next time


def manifest_path() -> Path:
    """This Python environment's manifest: one per `sys.prefix`, so venvs stay apart."""
    key = hashlib.sha256(os.path.realpath(sys.prefix).encode()).hexdigest()[:12]
    return cache_dir() / f"plugins-{key}.json"


def environment_fingerprint() -> str:
    """Changes when a distribution is installed or removed: the modification times of the
    site-packages folders on the import path (installing adds a `.dist-info` folder to one)."""
    digest = hashlib.sha256()
    for entry in sys.path:
        if entry.endswith(("site-packages", "dist-packages")):
            with contextlib.suppress(OSError):
                digest.update(f"{entry}\0{os.stat(entry).st_mtime_ns}\0".encode())
    return digest.hexdigest()[:16]


def read_manifest(path: Path | None = None) -> dict[str, dict[str, Any]]:
    """The manifest's records as last written, keeping only well-formed ones ({} if
    unreadable): it is only ever a hint."""
    return _read_manifest_file(path or manifest_path())[1]


def _read_manifest_file(path: Path) -> tuple[str | None, dict[str, dict[str, Any]]]:
    """(the fingerprint it was written under, its well-formed records)."""
    try:
        manifest = json.loads(path.read_text())
    except (OSError, ValueError):
        return None, {}
    if not isinstance(manifest, dict) or not isinstance(manifest.get("plugins"), dict):
        return None, {}
    fingerprint, data = manifest.get("fingerprint"), manifest["plugins"]
    return (fingerprint if isinstance(fingerprint, str) else None), {
        name: record
        for name, record in data.items()
        if isinstance(record, dict)
        and isinstance(record.get("registers"), dict)
        and all(isinstance(v, list) for v in record["registers"].values())
        and isinstance(record.get("commands"), dict)
        and isinstance(record.get("hooks"), list)
    }


def installed_records(
    manifest: dict[str, dict[str, Any]], entry_points: dict[str, EntryPoint]
) -> dict[str, dict[str, Any]]:
    """The records whose plugin is installed now under the entry point they were made from:
    a plugin uninstalled, or replaced by another module, since the manifest was written is
    not trusted."""
    return {
        name: record
        for name, record in manifest.items()
        if name in entry_points and record.get("entry_point") == entry_points[name].value
    }


def installed_manifest() -> tuple[dict[str, dict[str, Any]], list[str]]:
    """For callers without a host (`agentframe --help`; no plugin imported): the manifest's
    records of the plugins installed now, and the installed plugins it has no record of
    (installed since it was written). As written while nothing was installed or removed
    since; else checked against the installed entry points (stevedore's scan)."""
    fingerprint, records = _read_manifest_file(manifest_path())
    if fingerprint == environment_fingerprint():
        return records, []
    from stevedore import NamedExtensionManager

    found = {ep.name: ep for ep in NamedExtensionManager(GROUP, names=[]).list_entry_points()}
    current = installed_records(records, found)
    return current, sorted(set(found) - set(current))


@functools.cache
def _distribution_of(module: str) -> tuple[str | None, str | None]:
    from importlib.metadata import version

    dists = _top_level_distributions().get(module.split(".")[0]) or []
    if not dists:
        return None, None
    return dists[0], version(dists[0])


@functools.cache
def _top_level_distributions() -> dict[str, list[str]]:
    from importlib.metadata import packages_distributions

    return dict(packages_distributions())
