"""The parts plugins registered, by extension point, and how a config block becomes a part."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

from pydantic import BaseModel

__all__ = ["Kind", "PartSpec", "Register", "Registry"]


class Kind(StrEnum):
    """An extension point, named as in the config file (its hook, protocol and shape:
    `agentframe_core.contract.extensions`)."""

    ADAPTER = "adapter"
    STORE = "store"
    CONTEXT = "context"
    RETRIEVER = "retrievers"
    TOOLS = "tools"
    AGENT_LOADER = "agent_loaders"


class Register(Protocol):
    """The callable a registration hook receives."""

    def __call__(
        self,
        name: str,
        factory: Callable[[Any], Any],
        options: type[BaseModel] | None = None,
    ) -> None: ...


@dataclass(frozen=True, slots=True)
class PartSpec:
    kind: Kind
    name: str
    factory: Callable[[Any], Any]
    options: type[BaseModel] | None
    plugin: str

    def option_names(self) -> set[str]:
        """Every key the options model accepts (field names and aliases)."""
        if self.options is None:
            return set()
        names = set()
        for field_name, info in self.options.model_fields.items():
            names.add(field_name)
            if info.alias:
                names.add(info.alias)
        return names

    def validate(self, raw: Mapping[str, Any], context: dict[str, Any] | None = None) -> Any:
        """Validate a config block (without `use`); raises pydantic.ValidationError.
        `context` reaches the options' validators (`config_dir`: the config file's folder)."""
        if self.options is None:
            return dict(raw)
        return self.options.model_validate(dict(raw), context=context)

    def build(self, options: Any) -> Any:
        return self.factory(options)


class DuplicatePartError(ValueError):
    pass


class Registry:
    def __init__(self) -> None:
        self._parts: dict[Kind, dict[str, PartSpec]] = {kind: {} for kind in Kind}

    def registrar(self, kind: Kind, plugin: str) -> Register:
        """The `register` callable handed to one plugin's hook for one extension point."""

        def register(
            name: str,
            factory: Callable[[Any], Any],
            options: type[BaseModel] | None = None,
        ) -> None:
            if not isinstance(name, str) or not name:
                raise TypeError(f"{plugin}: register() needs a non-empty name, got {name!r}")
            if not callable(factory):
                raise TypeError(f"{plugin}: factory for {kind}:{name} is not callable")
            if options is not None and not (
                isinstance(options, type) and issubclass(options, BaseModel)
            ):
                raise TypeError(f"{plugin}: options for {kind}:{name} must be a pydantic model")
            existing = self._parts[kind].get(name)
            if existing is not None and existing.plugin != plugin:
                raise DuplicatePartError(
                    f"{kind} {name!r} is registered by both {existing.plugin!r} and {plugin!r}"
                )
            self._parts[kind][name] = PartSpec(kind, name, factory, options, plugin)

        return register

    def get(self, kind: Kind, name: str) -> PartSpec | None:
        return self._parts[kind].get(name)

    def names(self, kind: Kind) -> list[str]:
        return sorted(self._parts[kind])

    def parts(self, kind: Kind) -> list[PartSpec]:
        return [self._parts[kind][name] for name in self.names(kind)]

    def by_plugin(self, plugin: str) -> dict[str, list[str]]:
        """What one plugin registered: {kind: [names]} (only kinds with names)."""
        found: dict[str, list[str]] = {}
        for kind in Kind:
            names = [n for n, spec in sorted(self._parts[kind].items()) if spec.plugin == plugin]
            if names:
                found[kind.value] = names
        return found
