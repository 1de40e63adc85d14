"""The plugin guide documents every kit as it is: each capability a kit requires or makes
optional, each class setting, and each fixture a subclass must provide is named in the guide's
section for that kit, so a third party can pass a kit from the docs alone."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

import agentframe_core.testing as testing

GUIDE = Path(__file__).resolve().parent.parent / "docs" / "plugin-authoring.md"
KITS = [
    "StoreConformance",
    "StoreProcessConformance",
    "AdapterConformance",
    "ContextBuilderConformance",
    "RetrieverConformance",
    "ToolDispatcherConformance",
    "AgentLoaderConformance",
]


def section(kit: str) -> str:
    """The guide's section about `kit`: from its heading to the next one of its level."""
    text = GUIDE.read_text()
    start = text.index(f"### `{kit}`")
    end = text.find("\n### ", start + 1)
    return text[start:end]


def offered(kit: type) -> dict[str, list[str]]:
    """What a subclass author must know of `kit`: its capabilities, its class settings (the
    numbers it lets a subclass change) and the fixtures it must provide (those that raise
    NotImplementedError until overridden)."""
    capabilities = [name for key in (*kit.required, *kit.optional) for name in key.split(", ")]
    settings = [
        name
        for klass in kit.__mro__
        for name, value in vars(klass).items()
        if not name.startswith("_") and type(value) in (int, float)
    ]
    fixtures = [
        name
        for name, value in inspect.getmembers(kit)
        if hasattr(value, "_get_wrapped_function")
        and "NotImplementedError" in inspect.getsource(value._get_wrapped_function())
    ]
    return {"capability": capabilities, "class setting": settings, "fixture": fixtures}


def requires_paragraph(text: str) -> str:
    """The section's paragraph that starts with *Requires*."""
    start = text.index("*Requires*")
    end = text.find("\n\n", start)
    return " ".join(text[start:end].split())


@pytest.mark.parametrize("name", KITS)
def test_the_guide_names_what_each_kit_offers(name: str) -> None:
    """Capabilities in the section's *Requires* paragraph; settings and fixtures anywhere in
    the section, as code."""
    kit = getattr(testing, name)
    text = section(name)
    requires = requires_paragraph(text)
    found = {
        "capability": lambda item: item in requires,
        "class setting": lambda item: f"`{item}`" in text,
        "fixture": lambda item: f"`{item}`" in text,
    }
    unnamed = [
        f"{what} {item!r}"
        for what, items in offered(kit).items()
        for item in items
        if not found[what](item)
    ]
    assert not unnamed, f"docs/plugin-authoring.md, section {name}, does not name: {unnamed}"


def test_every_kit_declares_what_it_requires() -> None:
    """A kit with no required capability would fail nothing with a named message."""
    empty = [name for name in KITS if not getattr(testing, name).required]
    assert not empty, f"kits that declare no required capability: {empty}"
