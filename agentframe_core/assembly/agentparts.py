"""What `Agent(...)` is given, as a validated `Config`: the same recipe the CLI builds from.

Each part is a block (`{"use": "sqlite", "path": ...}`, or a part's name), validated against
the installed plugins exactly as a YAML file's block is, or an instance, used as it is (its
`PartConfig` builds that very object). `model` may also be `"provider:model"`. Plain functions
among the tools become one `functions` dispatcher (`FunctionToolset`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..contract.configtypes import Config, Limits, PartConfig
from ..contract.errors import ConfigError, ConfigIssue
from ..contract.registry import Kind, PartSpec
from ..engine.functions import FunctionTool
from ..parts.functions import FunctionToolset
from ..support.yamlsource import Located
from .config import validate_config, validate_part

if TYPE_CHECKING:
    from .plugins import PluginHost

__all__ = ["AgentPartsError", "adapter_config", "agent_config", "model_block"]

#: Where a part given as an instance comes from, in messages (`config show` would say so).
PYTHON_CODE = "python code"
#: What validation sees in the place of an instance: kernel parts, always installed.
_STAND_INS = {Kind.ADAPTER: "scripted", Kind.STORE: "memory", Kind.CONTEXT: "verbatim"}


class AgentPartsError(ConfigError):
    """A part given to `Agent(...)` that does not validate: each issue names the argument
    (`Agent(model=...)`) and the block's field, as a config file's names its line."""

    def __init__(self, issues: list[ConfigIssue]) -> None:
        super().__init__(issues)
        self.args = ("\n".join(_argument_issue(issue) for issue in issues),)


def _argument_issue(issue: ConfigIssue) -> str:
    head, _, rest = issue.path.partition(".")
    key, _, index = head.partition("[")
    argument = "model" if key == Kind.ADAPTER.value else key
    where = f"Agent({argument}=...)" + (f"[{index}" if index else "")
    return f"{where}: {rest + ': ' if rest else ''}{issue.message}"


def model_block(model: str | Mapping[str, Any]) -> dict[str, Any]:
    """`"openai:qwen2.5-7b"` -> `{"use": "openai", "model": "qwen2.5-7b"}`; `"llamacpp"` ->
    `{"use": "llamacpp"}`; a block stays as it is."""
    if not isinstance(model, str):
        return dict(model)
    provider, _, name = model.partition(":")
    return {"use": provider, "model": name} if name else {"use": provider}


def adapter_config(host: PluginHost, model: str | Mapping[str, Any]) -> PartConfig:
    """Only the model's block (`"provider:model"` or a block), validated (`override`)."""
    try:
        return validate_part(host, Located({"adapter": model_block(model)}, {}, None), Kind.ADAPTER)
    except ConfigError as err:
        raise AgentPartsError(err.issues) from None


def agent_config(
    host: PluginHost,
    *,
    model: Any,
    store: Any,
    context: Any,
    retrievers: Sequence[Any],
    tools: Sequence[Any],
    limits: Limits | Mapping[str, Any] | None,
) -> Config:
    """The `Config` of these parts (blocks validated, instances wrapped), or a ConfigError
    naming each block's problem as a config file's would (`tools[1].use: ...`)."""
    singles = {Kind.ADAPTER: model, Kind.STORE: store, Kind.CONTEXT: context}
    data: dict[str, Any] = {}
    for kind, given in singles.items():
        if kind is Kind.ADAPTER and _is_block(given):
            data[kind.value] = model_block(given)
        else:
            data[kind.value] = given if _is_block(given) else _STAND_INS[kind]
    lists = {Kind.RETRIEVER: list(retrievers), Kind.TOOLS: _toolsets(tools)}
    for kind, items in lists.items():
        data[kind.value] = [item for item in items if _is_block(item)]
    if limits is not None:
        data["limits"] = limits.model_dump() if isinstance(limits, Limits) else dict(limits)
    try:
        config = validate_config(host, Located(data, {}, None))
    except ConfigError as err:
        raise AgentPartsError(err.issues) from None
    replaced: dict[str, Any] = {
        kind.value: _instance_part(kind, given, kind.value)
        for kind, given in singles.items()
        if not _is_block(given)
    }
    for kind, items in lists.items():
        validated = iter(getattr(config, kind.value))
        replaced[kind.value] = [
            next(validated) if _is_block(item) else _instance_part(kind, item, f"{kind}[{i}]")
            for i, item in enumerate(items)
        ]
    return dataclasses.replace(config, **replaced)


def _toolsets(tools: Sequence[Any]) -> list[Any]:
    """The tools as dispatchers and blocks: the plain functions (and `@tool`s) gathered into
    one `FunctionToolset`, in the place of the first."""
    functions = [item for item in tools if _is_function(item)]
    out: list[Any] = []
    for item in tools:
        if not _is_function(item):
            out.append(item)
        elif item is functions[0]:
            out.append(FunctionToolset(functions))
    return out


def _is_function(item: Any) -> bool:
    """A plain function or a FunctionTool, not a dispatcher (which has `dispatch`)."""
    return isinstance(item, FunctionTool) or (callable(item) and not hasattr(item, "dispatch"))


def _is_block(item: Any) -> bool:
    return isinstance(item, str | Mapping)


def _instance_part(kind: Kind, instance: Any, path: str) -> PartConfig:
    """A part given as an object: its `PartConfig` builds that object."""
    spec = PartSpec(kind, type(instance).__name__, lambda _: instance, None, PYTHON_CODE)
    return PartConfig(spec, None, path)
