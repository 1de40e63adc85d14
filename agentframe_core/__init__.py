"""agentframe's kernel: the data model, the plugin contracts, the loop and the configuration.

This module is the public surface (listed, grouped, in `docs/api.md`): plugin authors need only
what is exported here, `agentframe_core.testing` for tests, and `agentframe_core.cli` for command
plugins. Every other module is internal and may change without notice.

Names are imported on first use, so that `import agentframe_core` (and the CLI's `--help`)
stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .agent import AgentDefinition, Backoff
    from .agents.folders import project_dirs
    from .agents.frontmatter import Frontmatter, read_frontmatter, split_frontmatter
    from .agents.loader import FolderLoader
    from .agents.parse import definition_from_frontmatter
    from .agents.skills import (
        Skill,
        SkillScan,
        discover_skills,
        find_skill,
        skill_folders,
        skill_resources,
    )
    from .arguments import decode_arguments
    from .catalog import AgentCatalog, find_agents
    from .config import (
        find_config_file,
        load_config,
        load_part,
        read_config,
        validate_config,
        validate_part,
    )
    from .configtypes import Config, Limits, PartConfig
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
    from .files import (
        FileReadError,
        PathEscapeError,
        atomic_write,
        confined,
        read_text_file,
        read_text_stream,
    )
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
    from .plugins import PluginHost, cache_dir, data_dir
    from .processes import pid_alive, start_watchdog
    from .prompt import assemble_system_prompt
    from .protocols import (
        AgentLoader,
        AgentScan,
        Closeable,
        ContextBuilder,
        ExportableStore,
        LeasingStore,
        LLMAdapter,
        PrioritizedLoader,
        PrunableStore,
        Retriever,
        RunContext,
        ScanningLoader,
        SearchableStore,
        Snippet,
        Stack,
        Store,
        StoredEntry,
        ToolDispatcher,
    )
    from .redact import RedactingFormatter, redact_data, redact_text, redact_url
    from .registry import Kind, Register
    from .render import Renderer, head_tail
    from .reports import CompactionReport, RetrievalReport
    from .retention import sessions_to_prune
    from .session import Outcome, RunResult, Session
    from .sqlitewal import use_wal
    from .stack import build_stack
    from .texttools import strip_fence, textualize
    from .toolbox import ToolCallRecord
    from .tools import Tool, ToolResult
    from .turnlease import SessionDeletedError, TurnLeaseLostError
    from .verbatim import VerbatimBuilder

__version__ = "0.1.0"

#: Every public name and the module it comes from, by group (the order of `docs/api.md`).
_LAZY = {
    # -- The contract: the data model
    "Compaction": ".model",
    "Entry": ".model",
    "EntryKind": ".model",
    "Message": ".model",
    "SessionInfo": ".model",
    "ToolCall": ".model",
    "new_id": ".model",
    "now_ns": ".model",
    "session_title": ".model",
    "Capabilities": ".llm",
    "Completion": ".llm",
    "CompletionRequest": ".llm",
    "ToolSpec": ".llm",
    "Usage": ".llm",
    "Tool": ".tools",
    "ToolResult": ".tools",
    "AgentDefinition": ".agent",
    "Backoff": ".agent",
    "CompactionReport": ".reports",
    "RetrievalReport": ".reports",
    "Diagnosis": ".diagnosis",
    "RunContext": ".protocols",
    "Stack": ".protocols",
    "Config": ".configtypes",
    "Limits": ".configtypes",
    "PartConfig": ".configtypes",
    # -- The contract: protocols, hooks and errors
    "AgentLoader": ".protocols",
    "ContextBuilder": ".protocols",
    "ExportableStore": ".protocols",
    "LLMAdapter": ".protocols",
    "PrunableStore": ".protocols",
    "Retriever": ".protocols",
    "SearchableStore": ".protocols",
    "Snippet": ".protocols",
    "Store": ".protocols",
    "StoredEntry": ".protocols",
    "ToolDispatcher": ".protocols",
    "LeasingStore": ".protocols",
    "SessionDeletedError": ".turnlease",
    "TurnLeaseLostError": ".turnlease",
    "AgentScan": ".protocols",
    "Closeable": ".protocols",
    "PrioritizedLoader": ".protocols",
    "ScanningLoader": ".protocols",
    "hookimpl": ".hookspecs",
    "hookspec": ".hookspecs",
    "Kind": ".registry",
    "Register": ".registry",
    "AgentDefinitionError": ".errors",
    "AgentframeError": ".errors",
    "ConfigError": ".errors",
    "ConfigIssue": ".errors",
    "MissingFieldError": ".errors",
    "UnknownAgentError": ".errors",
    "UnknownPartError": ".errors",
    # -- The loop, and the helpers parts share with it
    "ToolCallRecord": ".toolbox",
    "run": ".facade",
    "FunctionTool": ".functions",
    "FunctionToolset": ".functions",
    "tool": ".functions",
    "Renderer": ".render",
    "head_tail": ".render",
    "strip_fence": ".texttools",
    "textualize": ".texttools",
    "assemble_system_prompt": ".prompt",
    "MemoryStore": ".memory",
    "VerbatimBuilder": ".verbatim",
    "sessions_to_prune": ".retention",
    "atomic_write": ".files",
    "confined": ".files",
    "FileReadError": ".files",
    "PathEscapeError": ".files",
    "read_text_file": ".files",
    "read_text_stream": ".files",
    "RedactingFormatter": ".redact",
    "redact_data": ".redact",
    "redact_text": ".redact",
    "redact_url": ".redact",
    "decode_arguments": ".arguments",
    "pid_alive": ".processes",
    "start_watchdog": ".processes",
    "use_wal": ".sqlitewal",
    "Frontmatter": ".agents.frontmatter",
    "read_frontmatter": ".agents.frontmatter",
    "FolderLoader": ".agents.loader",
    "definition_from_frontmatter": ".agents.parse",
    "Skill": ".agents.skills",
    "find_skill": ".agents.skills",
    "SkillScan": ".agents.skills",
    "discover_skills": ".agents.skills",
    "skill_folders": ".agents.skills",
    "project_dirs": ".agents.folders",
    "skill_resources": ".agents.skills",
    "split_frontmatter": ".agents.frontmatter",
    "Outcome": ".session",
    "RunResult": ".session",
    "Session": ".session",
    # -- Configuration and assembly
    "find_config_file": ".config",
    "load_config": ".config",
    "read_config": ".config",
    "validate_config": ".config",
    "validate_part": ".config",
    "load_part": ".config",
    "PluginHost": ".plugins",
    "cache_dir": ".plugins",
    "data_dir": ".plugins",
    "build_stack": ".stack",
    "AgentCatalog": ".catalog",
    "find_agents": ".catalog",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'agentframe_core' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


__all__ = [  # noqa: RUF022 (grouped as in docs/api.md)
    # -- The contract: the data model
    "Compaction",
    "Entry",
    "EntryKind",
    "Message",
    "SessionInfo",
    "ToolCall",
    "new_id",
    "now_ns",
    "session_title",
    "Capabilities",
    "Completion",
    "CompletionRequest",
    "ToolSpec",
    "Usage",
    "Tool",
    "ToolResult",
    "AgentDefinition",
    "Backoff",
    "CompactionReport",
    "RetrievalReport",
    "Diagnosis",
    "RunContext",
    "Stack",
    "Config",
    "Limits",
    "PartConfig",
    # -- The contract: protocols, hooks and errors
    "AgentLoader",
    "ContextBuilder",
    "ExportableStore",
    "LLMAdapter",
    "PrunableStore",
    "Retriever",
    "SearchableStore",
    "Snippet",
    "Store",
    "StoredEntry",
    "ToolDispatcher",
    "LeasingStore",
    "SessionDeletedError",
    "TurnLeaseLostError",
    "AgentScan",
    "Closeable",
    "PrioritizedLoader",
    "ScanningLoader",
    "hookimpl",
    "hookspec",
    "Kind",
    "Register",
    "AgentDefinitionError",
    "AgentframeError",
    "ConfigError",
    "ConfigIssue",
    "MissingFieldError",
    "UnknownAgentError",
    "UnknownPartError",
    # -- The loop, and the helpers parts share with it
    "ToolCallRecord",
    "run",
    "FunctionTool",
    "FunctionToolset",
    "tool",
    "Renderer",
    "head_tail",
    "strip_fence",
    "textualize",
    "assemble_system_prompt",
    "MemoryStore",
    "VerbatimBuilder",
    "sessions_to_prune",
    "atomic_write",
    "confined",
    "FileReadError",
    "PathEscapeError",
    "read_text_file",
    "read_text_stream",
    "RedactingFormatter",
    "redact_data",
    "redact_text",
    "redact_url",
    "decode_arguments",
    "pid_alive",
    "start_watchdog",
    "use_wal",
    "Frontmatter",
    "read_frontmatter",
    "FolderLoader",
    "definition_from_frontmatter",
    "Skill",
    "find_skill",
    "SkillScan",
    "discover_skills",
    "skill_folders",
    "project_dirs",
    "skill_resources",
    "split_frontmatter",
    "Outcome",
    "RunResult",
    "Session",
    # -- Configuration and assembly
    "find_config_file",
    "load_config",
    "read_config",
    "validate_config",
    "validate_part",
    "load_part",
    "PluginHost",
    "cache_dir",
    "data_dir",
    "build_stack",
    "AgentCatalog",
    "find_agents",
]
