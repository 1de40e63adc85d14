"""One YAML file composes a stack: which part fills each extension point, and the limits.

Resolution: `--config F`, else `$AGENTFRAME_CONFIG`, else `./agentframe.yaml`, else the
embedded default (`default.yaml` in this package). A file may hold named `profiles` that are
deep-merged over its top level; `profile:` (or `--profile`, or `$AGENTFRAME_PROFILE`) picks one.
Strings may use `${ENV}` and `${ENV:-default}` (`$${` is a literal `${`), and a leading `~/`
is the home folder. Every problem is reported at once, each with file, line and YAML path.
"""

from __future__ import annotations

import copy
import difflib
import os
import re
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel
from pydantic import ValidationError as PydanticValidationError

from ..contract.configtypes import Config, Limits, PartConfig
from ..contract.errors import ConfigError, ConfigIssue, UnknownPartError
from ..contract.extensions import STACK_POINTS
from ..contract.registry import Kind
from ..support.files import CONFIG_FILE_LIMIT, FileReadError, read_text_file
from ..support.optionpaths import resolve_option_paths
from ..support.yamlsource import Located, YamlPath, format_path, load_yaml_text
from .nestedparts import nested_parts

if TYPE_CHECKING:
    from .plugins import PluginHost

__all__ = [
    "find_config_file",
    "load_config",
    "load_part",
    "load_part_lists",
    "read_config",
    "validate_block",
    "validate_part",
]

BlockModel = TypeVar("BlockModel", bound=BaseModel)

CONFIG_ENV = "AGENTFRAME_CONFIG"
PROFILE_ENV = "AGENTFRAME_PROFILE"
FILE_NAME = "agentframe.yaml"

SINGLE_PARTS = tuple(point.kind for point in STACK_POINTS if not point.many)
LIST_PARTS = tuple(point.kind for point in STACK_POINTS if point.many)
TOP_LEVEL_KEYS = {point.kind.value for point in STACK_POINTS} | {
    "agents",
    "limits",
    "profiles",
    "profile",
    "serve",  # agentframe-serve's block (it validates it: `serve`, `config check`)
    # tracing: the kernel reads `enabled` and `capture_content` (engine/telemetry.py);
    # agentframe-otel validates the rest (exporters, the local trace store)
    "telemetry",
}


# -- finding and reading ------------------------------------------------------------------------


def find_config_file(explicit: str | Path | None = None, cwd: Path | None = None) -> Path | None:
    """The config file in force, or None for the embedded default."""
    if explicit:
        return Path(explicit).expanduser()
    if os.environ.get(CONFIG_ENV):
        return Path(os.environ[CONFIG_ENV]).expanduser()
    candidate = (cwd or Path.cwd()) / FILE_NAME
    return candidate if candidate.is_file() else None


def default_config_text() -> str:
    return resources.files("agentframe_core").joinpath("default.yaml").read_text()


def read_config(file: str | Path | None, profile: str | None = None) -> Located:
    """Parse, select the profile, and interpolate; no part is looked up yet."""
    if isinstance(file, str):  # as `run(config="main.yaml")` takes it
        file = Path(file)
    if file is None:
        located = load_yaml_text(default_config_text(), None)
    else:
        try:
            text = read_text_file(file, CONFIG_FILE_LIMIT, "config file")
        except FileReadError as err:
            raise ConfigError(
                [ConfigIssue(file, "", f"cannot read config file: {err.reason}")]
            ) from None
        located = load_yaml_text(text, file)
        if located.data is None:  # a stack the user did not choose must not run silently
            raise ConfigError(
                [
                    ConfigIssue(
                        file,
                        "",
                        "the config file is empty; give at least one key (`agentframe config "
                        "show` without this file prints the embedded default to start from)",
                    )
                ]
            )
    if located.data is None:
        located.data = {}
    if not isinstance(located.data, dict):
        raise ConfigError([located.issue((), "the config must be a mapping of keys to values")])
    located = _apply_profile(located, profile)
    located.data.pop("profiles", None)  # applied; the others must not need their variables
    issues: list[ConfigIssue] = []
    located.data = _interpolate(located.data, (), located, issues)
    if issues:
        raise ConfigError(issues)
    return located


def _apply_profile(located: Located, chosen: str | None) -> Located:
    data = located.data
    profiles = data.get("profiles", {})
    name = chosen or os.environ.get(PROFILE_ENV) or data.get("profile")
    if profiles is None:
        profiles = {}
    if not isinstance(profiles, dict):
        raise ConfigError([located.issue(("profiles",), "must be a mapping of profile names")])
    if name is None:
        return located
    if not isinstance(name, str) or name not in profiles:
        known = ", ".join(map(str, profiles)) or "none defined"
        raise ConfigError([located.issue(("profile",), f"unknown profile {name!r} ({known})")])
    overlay = profiles[name] or {}
    if not isinstance(overlay, dict):
        raise ConfigError([located.issue(("profiles", name), "a profile must be a mapping")])
    merged = _deep_merge(data, overlay)
    lines = dict(located.lines)
    prefix = ("profiles", name)
    for path, line in located.lines.items():
        if path[:2] == prefix and len(path) > 2:
            lines[path[2:]] = line
    result = Located(merged, lines, located.file)
    result.data["profile"] = name
    return result


def _deep_merge(base: dict[str, Any], overlay: Mapping[str, Any]) -> dict[str, Any]:
    """Mappings merge key by key; anything else replaces. A part block whose `use` changes
    replaces the base block whole: another part's options mean nothing to it."""
    merged = copy.deepcopy(base)
    for key, value in overlay.items():
        current = merged.get(key)
        if (
            isinstance(value, Mapping)
            and isinstance(current, dict)
            and ("use" not in value or value.get("use") == current.get("use"))
        ):
            merged[key] = _deep_merge(current, value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


_ENV_PATTERN = re.compile(r"\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def _interpolate(value: Any, path: YamlPath, located: Located, issues: list[ConfigIssue]) -> Any:
    if isinstance(value, dict):
        return {k: _interpolate(v, (*path, k), located, issues) for k, v in value.items()}
    if isinstance(value, list):
        return [_interpolate(v, (*path, i), located, issues) for i, v in enumerate(value)]
    if not isinstance(value, str):
        return value

    def substitute(match: re.Match[str]) -> str:
        if match.group(0) == "$${":
            return "${"
        name, default = match.group(1), match.group(2)
        if name in os.environ:
            return os.environ[name]
        if default is not None:
            return default
        issues.append(
            located.issue(
                path,
                f"environment variable {name} is not set "
                f"(write ${{{name}:-default}} to give a default)",
            )
        )
        return ""

    text = _ENV_PATTERN.sub(substitute, value)
    if text == "~" or text.startswith("~/"):
        text = os.path.expanduser(text)
    return text


# -- validating against the installed parts -----------------------------------------------------


def load_config(
    host: PluginHost, file: str | Path | None = None, profile: str | None = None
) -> Config:
    """Read `file` (None: the embedded default) and validate it against installed parts."""
    return validate_config(host, read_config(file, profile))


def validate_config(host: PluginHost, located: Located) -> Config:
    data = located.data
    issues: list[ConfigIssue] = []
    for key in data:
        if key not in TOP_LEVEL_KEYS:
            issues.append(located.issue((key,), _unknown_key_message(key, TOP_LEVEL_KEYS)))

    singles = {kind: _single(host, kind, located, issues) for kind in SINGLE_PARTS}
    lists = {kind: _list(host, kind, located, issues) for kind in LIST_PARTS}

    agents = data.get("agents") or []
    if isinstance(agents, str):
        agents = [agents]
    if not isinstance(agents, list) or not all(isinstance(a, str) for a in agents):
        issues.append(located.issue(("agents",), "must be a list of folder paths"))
        agents = []
    base = located.file.parent if located.file else Path.cwd()
    agent_paths = [(base / Path(a).expanduser()) for a in agents]

    limits = Limits()
    raw_limits = data.get("limits")
    if raw_limits is not None:
        try:
            limits = Limits.model_validate(raw_limits)
        except PydanticValidationError as err:
            issues.extend(_pydantic_issues(err, ("limits",), located, Limits.model_fields))

    profile = data.get("profile")
    if issues:
        raise ConfigError(issues)
    adapter, store, context = (singles[kind] for kind in SINGLE_PARTS)
    assert adapter is not None and store is not None and context is not None
    return Config(
        file=located.file,
        profile=profile if isinstance(profile, str) else None,
        adapter=adapter,
        store=store,
        context=context,
        retrievers=lists[Kind.RETRIEVER],
        tools=lists[Kind.TOOLS],
        agents=agent_paths,
        limits=limits,
        data=data,
    )


def validate_block(
    data: Mapping[str, Any],
    key: str,
    model: type[BlockModel],
    file: Path | None = None,
    profile: str | None = None,
) -> BlockModel:
    """A plugin's top-level block (`serve:`, `telemetry:`), `data[key]` (absent or empty: the
    defaults), validated by `model`; else a ConfigError whose issues name the file, the line
    (read again from `file` with `profile`) and the field, as a part's options' do. A field
    with `exclude=True` (a removed setting that explains itself) is not offered as valid."""
    try:
        return model.model_validate(data.get(key) or {})
    except PydanticValidationError as err:
        try:
            located = read_config(file, profile) if file is not None else None
        except ConfigError:  # changed or gone since: the issues without their lines
            located = None
        where = located or Located({}, {}, file)
        offered = {name: f for name, f in model.model_fields.items() if not f.exclude}
        raise ConfigError(_pydantic_issues(err, (key,), where, offered)) from None


def load_part_lists(
    host: PluginHost, file: Path | None = None, profile: str | None = None
) -> dict[Kind, list[PartConfig]]:
    """Only the list blocks (`retrievers`, `tools`) of the config `file` (None: the embedded
    default), validated as `validate_config` does, for commands that read a retriever's or a
    tool dispatcher's options and need no model and no store (`memory list`, `mcp list`):
    they work where the adapter or store the config names is not installed."""
    located = read_config(file, profile)
    issues: list[ConfigIssue] = []
    lists = {kind: _list(host, kind, located, issues) for kind in LIST_PARTS}
    if issues:
        raise ConfigError(issues)
    return lists


def _list(
    host: PluginHost, kind: Kind, located: Located, issues: list[ConfigIssue]
) -> list[PartConfig]:
    blocks = located.data.get(kind.value) or []
    if not isinstance(blocks, list):
        issues.append(located.issue((kind.value,), "must be a list of {use: ...} blocks"))
        return []
    parts = [_part(host, kind, b, (kind.value, i), located, issues) for i, b in enumerate(blocks)]
    return [p for p in parts if p is not None]


def validate_part(host: PluginHost, located: Located, kind: Kind) -> PartConfig:
    """Only the `kind` block of a read config (`adapter`, `store` or `context`), validated as
    `validate_config` does: for commands that need one part and must not fail on the others
    (`agentframe llama` reads the adapter's options even when no store plugin is installed)."""
    if kind not in SINGLE_PARTS:
        raise ValueError(f"{kind.value!r} is not a single part ({', '.join(SINGLE_PARTS)})")
    issues: list[ConfigIssue] = []
    part = _single(host, kind, located, issues)
    if issues:
        raise ConfigError(issues)
    assert part is not None
    return part


def load_part(
    host: PluginHost,
    kind: Kind,
    file: Path | None,
    profile: str | None = None,
    *,
    absent: str | None = None,
    only: str | None = None,
) -> PartConfig | None:
    """Only the `kind` block of the config `file` (None: the embedded default), validated as
    `validate_config` does, for commands that use one part and must not fail on the others
    (a drainer needs no store). `absent` names the part used when the file has no such block
    (else the embedded default's). With `only`, a block that selects another part gives None,
    unvalidated: that part need not even be installed."""
    located = read_config(file, profile)
    if absent is not None and located.data.get(kind.value) is None:
        located.data[kind.value] = absent
    if only is not None:
        block = located.data.get(kind.value)
        if block is None:
            block = load_yaml_text(default_config_text(), None).data[kind.value]
        if (block.get("use") if isinstance(block, dict) else block) != only:
            return None
    return validate_part(host, located, kind)


def _single(
    host: PluginHost, kind: Kind, located: Located, issues: list[ConfigIssue]
) -> PartConfig | None:
    """The `kind` block, or the embedded default's when the file has none."""
    block = located.data.get(kind.value)
    if block is None:
        block = load_yaml_text(default_config_text(), None).data[kind.value]
        name = block.get("use") if isinstance(block, dict) else block
        try:
            host.resolve(kind, str(name))
        except UnknownPartError as err:
            issues.append(ConfigIssue(located.file, kind.value, _default_missing(kind, err)))
            return None
    return _part(host, kind, block, (kind.value,), located, issues)


def _default_missing(kind: Kind, err: UnknownPartError) -> str:
    """Leaving out a block means its default, which may not be installed: say both."""
    installed = ", ".join(err.installed) or "none"
    get = f"install it ({err.hint})" if err.hint else "install the plugin that provides it"
    example = err.installed[0] if err.installed else "NAME"
    return (
        f"not set, so the default {kind.value} {err.name!r} is used, but no installed plugin "
        f"provides it: {get}, or choose an installed {kind.value} ({installed}), e.g. "
        f"`{kind.value}: {{use: {example}}}`"
    )


def _part(
    host: PluginHost,
    kind: Kind,
    block: Any,
    path: YamlPath,
    located: Located,
    issues: list[ConfigIssue],
) -> PartConfig | None:
    if isinstance(block, str):  # `store: memory` is short for `store: {use: memory}`
        block = {"use": block}
    if not isinstance(block, dict):
        issues.append(located.issue(path, "must be a mapping with a `use:` key"))
        return None
    name = block.get("use")
    if not isinstance(name, str) or not name:
        issues.append(located.issue((*path, "use"), "field required: the name of the part"))
        return None
    try:
        spec = host.resolve(kind, name)
    except UnknownPartError as err:
        issues.append(located.issue((*path, "use"), str(err)))
        return None
    raw = {k: v for k, v in block.items() if k != "use"}
    if spec.options is not None and located.file is not None:
        raw = resolve_option_paths(spec.options, raw, located.file.parent)
    known = spec.option_names()
    unknown = [k for k in raw if k not in known]
    for key in unknown:
        issues.append(located.issue((*path, key), _unknown_key_message(str(key), known, name)))
    if spec.options is not None:
        before = len(issues)
        raw = nested_parts(
            spec.options, raw, path, lambda k, b, p: _part(host, k, b, p, located, issues)
        )
        if len(issues) > before:
            return None
    try:
        where = {"config_dir": located.file.parent.resolve()} if located.file else None
        options = spec.validate({k: v for k, v in raw.items() if k not in unknown}, where)
    except PydanticValidationError as err:
        fields = spec.options.model_fields if spec.options else {}
        issues.extend(_pydantic_issues(err, path, located, fields))
        return None
    if unknown:
        return None
    selected = located.line_of((*path, "use"))
    return PartConfig(spec, options, format_path(path), located.file, selected)


def _unknown_key_message(key: str, known: set[str], part: str | None = None) -> str:
    owner = f" for {part!r}" if part else ""
    message = f"unknown option{owner}"
    close = difflib.get_close_matches(key, sorted(known), n=1)
    if close:
        message += f" (did you mean {close[0]!r}?)"
    elif known:
        message += f"; valid options: {', '.join(sorted(known))}"
    else:
        message += "; this part takes no options"
    return message


def _pydantic_issues(
    err: PydanticValidationError, base: YamlPath, located: Located, fields: Mapping[str, Any]
) -> list[ConfigIssue]:
    issues = []
    for error in err.errors(include_url=False):
        loc = tuple(error["loc"])
        message = error["msg"]
        if error["type"] == "missing":
            message = "field required"
        elif error["type"] == "value_error":
            message = message.removeprefix("Value error, ")
        elif error["type"] == "extra_forbidden":
            message = _unknown_key_message(str(loc[-1]), set(fields))
        issues.append(located.issue((*base, *loc), message))
    return issues
