"""agentframe's kernel: the data model, the plugin contracts, the loop and the configuration.

Plugin authors need only what is exported here (and `agentframe_core.testing` for tests).

Names are imported on first use, so that `import agentframe_core` (and the CLI's `--help`)
stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .agent import AgentDefinition, Backoff
    from .agents.catalog import AgentCatalog, find_agents
    from .agents.skills import Skill, find_skill
    from .compaction import CompactionReport
    from .config import (
        Config,
        Limits,
        PartConfig,
        find_config_file,
        load_config,
        read_config,
        validate_config,
        validate_part,
    )
    from .context import RunContext
    from .diagnosis import Diagnosis
    from .errors import (
        AgentDefinitionError,
        AgentframeError,
        ConfigError,
        ConfigIssue,
        MissingFieldError,
        UnknownAgentError,
        UnknownPartError,
    )
    from .facade import run
    from .files import FileReadError, read_text_file, read_text_stream
    from .functions import FunctionTool, FunctionToolset, tool
    from .hookspecs import hookimpl, hookspec
    from .llm import Capabilities, Completion, CompletionRequest, ToolSpec, Usage
    from .memory import MemoryStore
    from .model import (
        Compaction,
        Entry,
        EntryKind,
        Message,
        SessionInfo,
        ToolCall,
        new_id,
        now_ns,
        session_title,
    )
    from .plugins import PluginHost, cache_dir
    from .prompt import assemble_system_prompt
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
    from .redact import RedactingFormatter, redact_data, redact_text, redact_url
    from .registry import Kind, Register
    from .render import Renderer, head_tail
    from .retention import sessions_to_prune
    from .session import Outcome, Session, TurnResult
    from .stack import Stack, build_stack
    from .texttools import strip_fence, textualize
    from .toolbox import ToolCallRecord
    from .tools import Tool, ToolResult
    from .verbatim import VerbatimBuilder

__version__ = "0.1.0"

_LAZY = {
    "AgentCatalog": ".agents.catalog",
    "AgentDefinition": ".agent",
    "AgentDefinitionError": ".errors",
    "AgentframeError": ".errors",
    "AgentLoader": ".protocols",
    "assemble_system_prompt": ".prompt",
    "Backoff": ".agent",
    "build_stack": ".stack",
    "cache_dir": ".plugins",
    "Capabilities": ".llm",
    "Compaction": ".model",
    "CompactionReport": ".compaction",
    "Completion": ".llm",
    "CompletionRequest": ".llm",
    "Config": ".config",
    "ConfigError": ".errors",
    "ConfigIssue": ".errors",
    "ContextBuilder": ".protocols",
    "Diagnosis": ".diagnosis",
    "Entry": ".model",
    "EntryKind": ".model",
    "ExportableStore": ".protocols",
    "FileReadError": ".files",
    "find_agents": ".agents.catalog",
    "find_config_file": ".config",
    "find_skill": ".agents.skills",
    "FunctionTool": ".functions",
    "FunctionToolset": ".functions",
    "head_tail": ".render",
    "hookimpl": ".hookspecs",
    "hookspec": ".hookspecs",
    "Kind": ".registry",
    "Limits": ".config",
    "LLMAdapter": ".protocols",
    "load_config": ".config",
    "MemoryStore": ".memory",
    "Message": ".model",
    "MissingFieldError": ".errors",
    "new_id": ".model",
    "now_ns": ".model",
    "Outcome": ".session",
    "PartConfig": ".config",
    "PluginHost": ".plugins",
    "PrunableStore": ".protocols",
    "read_config": ".config",
    "redact_data": ".redact",
    "redact_text": ".redact",
    "redact_url": ".redact",
    "RedactingFormatter": ".redact",
    "read_text_file": ".files",
    "read_text_stream": ".files",
    "Register": ".registry",
    "Renderer": ".render",
    "Retriever": ".protocols",
    "run": ".facade",
    "RunContext": ".context",
    "SearchableStore": ".protocols",
    "Session": ".session",
    "session_title": ".model",
    "SessionInfo": ".model",
    "sessions_to_prune": ".retention",
    "Skill": ".agents.skills",
    "Snippet": ".protocols",
    "Stack": ".stack",
    "Store": ".protocols",
    "StoredEntry": ".protocols",
    "strip_fence": ".texttools",
    "textualize": ".texttools",
    "Tool": ".tools",
    "tool": ".functions",
    "ToolCall": ".model",
    "ToolCallRecord": ".toolbox",
    "ToolDispatcher": ".protocols",
    "ToolResult": ".tools",
    "ToolSpec": ".llm",
    "TurnResult": ".session",
    "UnknownAgentError": ".errors",
    "UnknownPartError": ".errors",
    "Usage": ".llm",
    "validate_config": ".config",
    "validate_part": ".config",
    "VerbatimBuilder": ".verbatim",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'agentframe_core' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "AgentCatalog",
    "AgentDefinition",
    "AgentDefinitionError",
    "AgentLoader",
    "AgentframeError",
    "Backoff",
    "Capabilities",
    "Compaction",
    "CompactionReport",
    "Completion",
    "CompletionRequest",
    "Config",
    "ConfigError",
    "ConfigIssue",
    "ContextBuilder",
    "Diagnosis",
    "Entry",
    "EntryKind",
    "ExportableStore",
    "FileReadError",
    "FunctionTool",
    "FunctionToolset",
    "Kind",
    "LLMAdapter",
    "Limits",
    "MemoryStore",
    "Message",
    "MissingFieldError",
    "Outcome",
    "PartConfig",
    "PluginHost",
    "PrunableStore",
    "RedactingFormatter",
    "Register",
    "Renderer",
    "Retriever",
    "RunContext",
    "SearchableStore",
    "Session",
    "SessionInfo",
    "Skill",
    "Snippet",
    "Stack",
    "Store",
    "StoredEntry",
    "Tool",
    "ToolCall",
    "ToolCallRecord",
    "ToolDispatcher",
    "ToolResult",
    "ToolSpec",
    "TurnResult",
    "UnknownAgentError",
    "UnknownPartError",
    "Usage",
    "VerbatimBuilder",
    "assemble_system_prompt",
    "build_stack",
    "cache_dir",
    "find_agents",
    "find_config_file",
    "find_skill",
    "head_tail",
    "hookimpl",
    "hookspec",
    "load_config",
    "new_id",
    "now_ns",
    "read_config",
    "read_text_file",
    "read_text_stream",
    "redact_data",
    "redact_text",
    "redact_url",
    "run",
    "session_title",
    "sessions_to_prune",
    "strip_fence",
    "textualize",
    "tool",
    "validate_config",
    "validate_part",
]
