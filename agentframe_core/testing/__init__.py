"""Test doubles and conformance kits for plugin authors.

`ScriptedAdapter` runs a stack with no model. The conformance kits are pytest base classes:
subclass one and provide the fixture that builds your part (`store`, `adapter`, ...). They
need pytest and hypothesis (`pip install agentframe[test]`), so they are imported on first use.
"""

from __future__ import annotations

import importlib
from typing import Any

from ..parts.scripted import ScriptedAdapter, ScriptedOptions, ScriptedReply, ScriptExhaustedError
from .children import Child, start_together
from .cli import cli_command, cli_env, run_cli
from .waiting import eventually, eventually_async

#: The kits, the scenario data an adapter's or loader's own tests reuse, and the venv helpers
#: (for tests that pip-install a distribution as a user does), imported on first use.
_KITS = {
    "StoreConformance": ".conformance.store",
    "StoreProcessConformance": ".conformance.store_processes",
    "AdapterConformance": ".conformance.adapter",
    "ContextBuilderConformance": ".conformance.context",
    "ToolDispatcherConformance": ".conformance.tools",
    "RetrieverConformance": ".conformance.retriever",
    "AgentLoaderConformance": ".conformance.agents",
    "Scenario": ".conformance.adapter",
    "SCENARIOS": ".conformance.adapter",
    "ADD_TOOL": ".conformance.adapter",
    "ANSWER_SCHEMA": ".conformance.adapter",
    "AgentLayout": ".conformance.agents",
    "check_well_formed": ".conformance.context",
    "check_turns_well_formed": ".conformance.lease",
    "make_venv": ".venvs",
    "venv_pip": ".venvs",
    "venv_cli": ".venvs",
}

__all__ = [
    "ScriptExhaustedError",
    "run_cli",
    "cli_command",
    "cli_env",
    "eventually",
    "eventually_async",
    "Child",
    "start_together",
    "ScriptedAdapter",
    "ScriptedOptions",
    "ScriptedReply",
    *_KITS,
]


def __getattr__(name: str) -> Any:
    module = _KITS.get(name)
    if module is None:
        raise AttributeError(f"module 'agentframe_core.testing' has no attribute {name!r}")
    return getattr(importlib.import_module(module, __name__), name)
