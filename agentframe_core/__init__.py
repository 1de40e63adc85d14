"""agentframe's kernel: the data model, the plugin contracts, the loop and the configuration.

Plugin authors need only what is exported here (and `agentframe_core.testing` for tests).

Names are imported on first use, so that `import agentframe_core` (and the CLI's `--help`)
stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .agent import AgentDefinition
    from .compaction import CompactionReport
    from .context import RunContext
    from .errors import AgentframeError, ConfigError, UnknownPartError
    from .facade import run
    from .functions import FunctionTool, FunctionToolset, tool
    from .hookspecs import hookimpl, hookspec
    from .llm import Capabilities, Completion, CompletionRequest, ToolSpec, Usage
    from .model import Compaction, Entry, EntryKind, Message, SessionInfo, ToolCall, new_id, now_ns
    from .protocols import (
        AgentLoader,
        ContextBuilder,
        ExportableStore,
        LLMAdapter,
        PrunableStore,
        Retriever,
        SearchableStore,
        Snippet,
        Store,
        StoredEntry,
        ToolDispatcher,
    )
    from .registry import Register
    from .tools import Tool, ToolResult

__version__ = "0.1.0"

_LAZY = {
    "AgentDefinition": ".agent",
    "AgentLoader": ".protocols",
    "AgentframeError": ".errors",
    "Capabilities": ".llm",
    "Compaction": ".model",
    "CompactionReport": ".compaction",
    "Completion": ".llm",
    "CompletionRequest": ".llm",
    "ConfigError": ".errors",
    "ContextBuilder": ".protocols",
    "Entry": ".model",
    "EntryKind": ".model",
    "ExportableStore": ".protocols",
    "FunctionTool": ".functions",
    "FunctionToolset": ".functions",
    "LLMAdapter": ".protocols",
    "Message": ".model",
    "PrunableStore": ".protocols",
    "Register": ".registry",
    "Retriever": ".protocols",
    "RunContext": ".context",
    "SearchableStore": ".protocols",
    "SessionInfo": ".model",
    "Snippet": ".protocols",
    "Store": ".protocols",
    "StoredEntry": ".protocols",
    "Tool": ".tools",
    "ToolCall": ".model",
    "ToolDispatcher": ".protocols",
    "ToolResult": ".tools",
    "ToolSpec": ".llm",
    "UnknownPartError": ".errors",
    "Usage": ".llm",
    "hookimpl": ".hookspecs",
    "run": ".facade",
    "hookspec": ".hookspecs",
    "new_id": ".model",
    "now_ns": ".model",
    "tool": ".functions",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'agentframe_core' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "AgentDefinition",
    "AgentLoader",
    "AgentframeError",
    "Capabilities",
    "Compaction",
    "CompactionReport",
    "Completion",
    "CompletionRequest",
    "ConfigError",
    "ContextBuilder",
    "Entry",
    "EntryKind",
    "ExportableStore",
    "FunctionTool",
    "FunctionToolset",
    "LLMAdapter",
    "Message",
    "PrunableStore",
    "Register",
    "Retriever",
    "RunContext",
    "SearchableStore",
    "SessionInfo",
    "Snippet",
    "Store",
    "StoredEntry",
    "Tool",
    "ToolCall",
    "ToolDispatcher",
    "ToolResult",
    "ToolSpec",
    "UnknownPartError",
    "Usage",
    "hookimpl",
    "hookspec",
    "new_id",
    "now_ns",
    "run",
    "tool",
]
