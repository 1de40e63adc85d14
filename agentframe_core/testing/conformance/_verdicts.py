"""How a kit says what a part lacks or broke, in words a plugin author can act on.

A kit names the capabilities it requires (a part without one fails, told what to add) and the
optional ones (the tests that need one skip, saying which and what it is for); an error a rule
demands that did not come fails naming the rule, not with pytest's bare "DID NOT RAISE".
Each helper hides its own frame (`__tracebackhide__`), as the kits' callers of them do, so a
skip or a failure points at the line of the kit's test.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any, NoReturn

import pytest

__all__ = [
    "GUIDE",
    "kit_lacks",
    "lacks",
    "members",
    "missing",
    "raises",
    "require",
    "undeclared",
    "unmet",
]

#: Where every rule a kit checks is written down.
GUIDE = "docs/plugin-authoring.md"


def members(protocol: type) -> list[str]:
    """The public methods and attributes of `protocol`, its bases' first."""
    names: list[str] = []
    for cls in reversed(protocol.__mro__):
        if cls is object or cls.__module__ == "typing":
            continue
        names += [name for name in vars(cls) if not name.startswith("_") and name not in names]
    return names


def missing(part: Any, protocol: type) -> str:
    """What `part` lacks of `protocol` (all of it, if it lacks nothing by name), as words:
    "`history` and `restore`"."""
    absent = [name for name in members(protocol) if not hasattr(part, name)] or members(protocol)
    names = [f"`{name}`" for name in absent]
    return " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)


def require(part: Any, protocol: type, *, role: str) -> None:
    """Fail the running test unless `part` is a `protocol` (a runtime-checkable Protocol)."""
    __tracebackhide__ = True
    if not isinstance(part, protocol):
        unmet(part, protocol, role=role)


def unmet(part: Any, protocol: type, *, role: str, since: str = "") -> NoReturn:
    """Fail the running test: `part` is not `protocol`, which every `role` must be (the
    caller checked, with `isinstance`, which also narrows the part's type for the test)."""
    __tracebackhide__ = True
    new = f" (required since {since}: see 'Upgrading from 0.1' in {GUIDE})" if since else ""
    pytest.fail(
        f"{type(part).__name__} does not implement {protocol.__name__}, which every {role} "
        f"must{new}: add {missing(part, protocol)} "
        f"(agentframe_core.{protocol.__name__}; its contract is in {GUIDE})",
        pytrace=False,
    )


def lacks(part: Any, protocol: type, *, gives: str) -> NoReturn:
    """Skip the running test: `part` is not `protocol`, an optional capability (the caller
    checked, with `isinstance`, which also narrows the part's type for the test)."""
    __tracebackhide__ = True
    pytest.skip(
        f"{type(part).__name__} does not implement {protocol.__name__}: optional ({gives}); "
        f"add {missing(part, protocol)} to have this test run"
    )


def undeclared(part: Any, flag: str, *, gives: str) -> NoReturn:
    """Skip the running test: `part` does not declare the optional capability `flag`
    (a field of its `Capabilities`)."""
    __tracebackhide__ = True
    pytest.skip(
        f"{type(part).__name__} does not declare {flag} (capabilities.{flag} is False): "
        f"optional ({gives}); this test runs for a part that declares it"
    )


def kit_lacks(kit: Any, lacking: str, *, gives: str, remedy: str) -> NoReturn:
    """Skip the running test: the kit subclass lacks what an optional test needs (a hook it
    does not override, a level its layout does not have); `lacking` says which, as a
    predicate ("does not override `received_text`"), and `remedy` what to do."""
    __tracebackhide__ = True
    pytest.skip(
        f"{type(kit).__name__} {lacking}: optional ({gives}); {remedy} to have this test run"
    )


@contextlib.contextmanager
def raises(error: type[BaseException], rule: str) -> Iterator[None]:
    """Expect the body to raise `error`; `rule` says what must raise it, e.g. "append() of an
    id the session already holds". Another error propagates as it is."""
    try:
        yield
    except error:
        return
    pytest.fail(f"{rule} must raise {error.__name__}; it returned normally", pytrace=False)
