"""The kernel's own parts (memory store, verbatim builder, function tools, the agent-folder
loader, the scripted adapter), registered through the same hooks as any plugin."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationInfo,
    model_validator,
)

from ..contract.hookspecs import hookimpl
from ..contract.registry import Register


def _importable(reference: str, info: ValidationInfo) -> str:
    from ..engine.functions import import_tool

    import_tool(reference, _config_dir(info))  # raises ValueError naming what is wrong
    return reference


def _config_dir(info: ValidationInfo) -> Path | None:
    found = (info.context or {}).get("config_dir")
    return found if isinstance(found, Path) else None


class FunctionsOptions(BaseModel):
    """`tools: [{use: functions, import: ["package.module:function", ...]}]`"""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    import_: list[Annotated[str, AfterValidator(_importable)]] = Field(alias="import", min_length=1)
    isolate: bool = Field(
        default=False,
        description="Run each call in a child process, killed at the tool's timeout (a sync "
        "function in a thread cannot be stopped). Costs a Python start per call.",
    )
    #: The config file's folder: a module there is imported from it first.
    _folder: Path | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _remember_folder(self, info: ValidationInfo) -> FunctionsOptions:
        self._folder = _config_dir(info)
        return self


class AgentFolderOptions(BaseModel):
    """The kernel's agent loader; `folders` is filled from the config's `agents:` list."""

    model_config = ConfigDict(extra="forbid")
    folders: list[Path] = Field(default_factory=list)


class NoOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _memory_store(_: Any) -> Any:
    from .memorystore import MemoryStore

    return MemoryStore()


def _verbatim(_: Any) -> Any:
    from .verbatim import VerbatimBuilder

    return VerbatimBuilder()


def _functions(options: FunctionsOptions) -> Any:
    from ..engine.functions import import_tool
    from .functions import FunctionToolset

    tools = (import_tool(ref, options._folder) for ref in options.import_)
    return FunctionToolset(tools, isolate=options.isolate)


def _agent_loader(options: AgentFolderOptions) -> Any:
    from .agentloader import AgentframeLoader

    return AgentframeLoader(options.folders)


def _scripted(options: Any) -> Any:
    from .scripted import ScriptedAdapter

    return ScriptedAdapter.from_options(options)


@hookimpl
def agentframe_adapters(register: Register) -> None:
    from .scripted import ScriptedOptions

    register("scripted", _scripted, options=ScriptedOptions)


@hookimpl
def agentframe_stores(register: Register) -> None:
    register("memory", _memory_store, options=NoOptions)


@hookimpl
def agentframe_context_builders(register: Register) -> None:
    register("verbatim", _verbatim, options=NoOptions)


@hookimpl
def agentframe_tool_dispatchers(register: Register) -> None:
    register("functions", _functions, options=FunctionsOptions)


@hookimpl
def agentframe_agent_loaders(register: Register) -> None:
    register("agentframe", _agent_loader, options=AgentFolderOptions)
