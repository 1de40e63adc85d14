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
    from .assembly.agent import Agent, Conversation
    from .assembly.agentevents import (
        ProgressEvent,
        ResultEvent,
        RunEvent,
        TokenEvent,
        ToolEvent,
    )
    from .assembly.catalog import AgentCatalog, find_agents
    from .assembly.commands import CommandCatalog, find_commands
    from .assembly.config import (
        find_config_file,
        load_config,
        load_part,
        read_config,
        validate_block,
        validate_config,
        validate_part,
    )
    from .assembly.diagnose import diagnose
    from .assembly.facade import run
    from .assembly.plugins import PluginHost, cache_dir, data_dir
    from .assembly.stack import build_stack
    from .assembly.trust import (
        UntrustedFolderError,
        config_in_project,
        confirm,
        require_trust,
        trust_all,
    )
    from .contract.commands import CommandError, CommandScan, SlashCommand, UnknownCommandError
    from .contract.configtypes import AdapterPart, Config, Limits, PartConfig, PartOf
    from .contract.definition import AgentDefinition, Backoff
    from .contract.diagnosis import Diagnosis
    from .contract.errors import (
        AgentDefinitionError,
        AgentframeError,
        ConfigError,
        ConfigIssue,
        EventLoopRunningError,
        MissingFieldError,
        UnknownAgentError,
        UnknownPartError,
    )
    from .contract.extensions import EXTENSION_POINTS, ExtensionPoint
    from .contract.hookspecs import hookimpl, hookspec
    from .contract.llm import Capabilities, Completion, CompletionRequest, ToolSpec, Usage
    from .contract.model import (
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
    from .contract.protocols import (
        AgentLoader,
        AgentScan,
        BudgetedBuilder,
        Closeable,
        ContextBuilder,
        ExportableStore,
        LeasingStore,
        LLMAdapter,
        LocalLeasingStore,
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
    from .contract.questions import Answer, Question
    from .contract.registry import Kind, Register
    from .contract.reports import CompactionReport, RetrievalReport
    from .contract.runtimehooks import HookVerdict
    from .contract.tools import Tool, ToolResult
    from .engine.arguments import decode_arguments
    from .engine.definitions.folders import project_dirs
    from .engine.definitions.frontmatter import Frontmatter, read_frontmatter, split_frontmatter
    from .engine.definitions.loader import FolderLoader
    from .engine.definitions.parse import definition_from_frontmatter
    from .engine.definitions.skills import (
        Skill,
        SkillScan,
        discover_skills,
        find_skill,
        skill_folders,
        skill_resources,
    )
    from .engine.functions import FunctionTool, tool
    from .engine.output import ModelRetry, OutputSpec
    from .engine.prompt import assemble_system_prompt
    from .engine.render import Renderer, head_tail
    from .engine.session import Outcome, RunResult, Session
    from .engine.texttools import strip_fence, textualize
    from .engine.toolbox import ToolCallRecord
    from .parts.functions import FunctionToolset
    from .parts.memorystore import MemoryStore
    from .parts.verbatim import VerbatimBuilder
    from .support.files import (
        FileReadError,
        PathEscapeError,
        atomic_write,
        confined,
        read_text_file,
        read_text_stream,
    )
    from .support.processes import pid_alive, start_watchdog
    from .support.redact import RedactingFormatter, redact_data, redact_text, redact_url
    from .support.retention import sessions_to_prune
    from .support.sqlitewal import create_private, use_wal
    from .support.turnlease import SessionDeletedError, TurnLeaseLostError

    #: The installed distribution's version (its metadata: one number, set in pyproject.toml).
    __version__: str

#: Every public name and the module it comes from, by group (the order of `docs/api.md`).
_LAZY = {
    # -- Agents in Python code
    "Agent": ".assembly.agent",
    "Conversation": ".assembly.agent",
    "ModelRetry": ".engine.output",
    "OutputSpec": ".engine.output",
    "RunEvent": ".assembly.agentevents",
    "TokenEvent": ".assembly.agentevents",
    "ToolEvent": ".assembly.agentevents",
    "ProgressEvent": ".assembly.agentevents",
    "ResultEvent": ".assembly.agentevents",
    # -- The contract: the data model
    "Compaction": ".contract.model",
    "Entry": ".contract.model",
    "EntryKind": ".contract.model",
    "Message": ".contract.model",
    "SessionInfo": ".contract.model",
    "ToolCall": ".contract.model",
    "new_id": ".contract.model",
    "now_ns": ".contract.model",
    "session_title": ".contract.model",
    "Capabilities": ".contract.llm",
    "Completion": ".contract.llm",
    "CompletionRequest": ".contract.llm",
    "ToolSpec": ".contract.llm",
    "Usage": ".contract.llm",
    "Tool": ".contract.tools",
    "ToolResult": ".contract.tools",
    "AgentDefinition": ".contract.definition",
    "Backoff": ".contract.definition",
    "CompactionReport": ".contract.reports",
    "RetrievalReport": ".contract.reports",
    "Diagnosis": ".contract.diagnosis",
    "RunContext": ".contract.protocols",
    "Stack": ".contract.protocols",
    "Question": ".contract.questions",
    "Answer": ".contract.questions",
    "Config": ".contract.configtypes",
    "Limits": ".contract.configtypes",
    "PartConfig": ".contract.configtypes",
    "AdapterPart": ".contract.configtypes",
    "PartOf": ".contract.configtypes",
    # -- The contract: protocols, hooks and errors
    "AgentLoader": ".contract.protocols",
    "ContextBuilder": ".contract.protocols",
    "ExportableStore": ".contract.protocols",
    "LLMAdapter": ".contract.protocols",
    "PrunableStore": ".contract.protocols",
    "Retriever": ".contract.protocols",
    "SearchableStore": ".contract.protocols",
    "Snippet": ".contract.protocols",
    "Store": ".contract.protocols",
    "StoredEntry": ".contract.protocols",
    "ToolDispatcher": ".contract.protocols",
    "LeasingStore": ".contract.protocols",
    "LocalLeasingStore": ".contract.protocols",
    "SessionDeletedError": ".support.turnlease",
    "TurnLeaseLostError": ".support.turnlease",
    "AgentScan": ".contract.protocols",
    "BudgetedBuilder": ".contract.protocols",
    "Closeable": ".contract.protocols",
    "PrioritizedLoader": ".contract.protocols",
    "ScanningLoader": ".contract.protocols",
    "hookimpl": ".contract.hookspecs",
    "hookspec": ".contract.hookspecs",
    "HookVerdict": ".contract.runtimehooks",
    "Kind": ".contract.registry",
    "Register": ".contract.registry",
    "EXTENSION_POINTS": ".contract.extensions",
    "ExtensionPoint": ".contract.extensions",
    "AgentDefinitionError": ".contract.errors",
    "AgentframeError": ".contract.errors",
    "ConfigError": ".contract.errors",
    "ConfigIssue": ".contract.errors",
    "EventLoopRunningError": ".contract.errors",
    "MissingFieldError": ".contract.errors",
    "UnknownAgentError": ".contract.errors",
    "UnknownPartError": ".contract.errors",
    "SlashCommand": ".contract.commands",
    "CommandScan": ".contract.commands",
    "CommandError": ".contract.commands",
    "UnknownCommandError": ".contract.commands",
    # -- The loop, and the helpers parts share with it
    "ToolCallRecord": ".engine.toolbox",
    "run": ".assembly.facade",
    "FunctionTool": ".engine.functions",
    "FunctionToolset": ".parts.functions",
    "tool": ".engine.functions",
    "Renderer": ".engine.render",
    "head_tail": ".engine.render",
    "strip_fence": ".engine.texttools",
    "textualize": ".engine.texttools",
    "assemble_system_prompt": ".engine.prompt",
    "MemoryStore": ".parts.memorystore",
    "VerbatimBuilder": ".parts.verbatim",
    "sessions_to_prune": ".support.retention",
    "atomic_write": ".support.files",
    "confined": ".support.files",
    "FileReadError": ".support.files",
    "PathEscapeError": ".support.files",
    "read_text_file": ".support.files",
    "read_text_stream": ".support.files",
    "RedactingFormatter": ".support.redact",
    "redact_data": ".support.redact",
    "redact_text": ".support.redact",
    "redact_url": ".support.redact",
    "decode_arguments": ".engine.arguments",
    "pid_alive": ".support.processes",
    "start_watchdog": ".support.processes",
    "use_wal": ".support.sqlitewal",
    "create_private": ".support.sqlitewal",
    "Frontmatter": ".engine.definitions.frontmatter",
    "read_frontmatter": ".engine.definitions.frontmatter",
    "FolderLoader": ".engine.definitions.loader",
    "definition_from_frontmatter": ".engine.definitions.parse",
    "Skill": ".engine.definitions.skills",
    "find_skill": ".engine.definitions.skills",
    "SkillScan": ".engine.definitions.skills",
    "discover_skills": ".engine.definitions.skills",
    "skill_folders": ".engine.definitions.skills",
    "project_dirs": ".engine.definitions.folders",
    "skill_resources": ".engine.definitions.skills",
    "split_frontmatter": ".engine.definitions.frontmatter",
    "Outcome": ".engine.session",
    "RunResult": ".engine.session",
    "Session": ".engine.session",
    # -- Configuration and assembly
    "find_config_file": ".assembly.config",
    "load_config": ".assembly.config",
    "read_config": ".assembly.config",
    "validate_config": ".assembly.config",
    "validate_part": ".assembly.config",
    "validate_block": ".assembly.config",
    "load_part": ".assembly.config",
    "PluginHost": ".assembly.plugins",
    "cache_dir": ".assembly.plugins",
    "data_dir": ".assembly.plugins",
    "UntrustedFolderError": ".assembly.trust",
    "config_in_project": ".assembly.trust",
    "confirm": ".assembly.trust",
    "require_trust": ".assembly.trust",
    "trust_all": ".assembly.trust",
    "build_stack": ".assembly.stack",
    "AgentCatalog": ".assembly.catalog",
    "find_agents": ".assembly.catalog",
    "CommandCatalog": ".assembly.commands",
    "find_commands": ".assembly.commands",
    "diagnose": ".assembly.diagnose",
}


def __getattr__(name: str) -> Any:
    if name == "__version__":  # read on first use: `import agentframe_core` stays cheap
        found: str = importlib.import_module("importlib.metadata").version("agentframe")
        globals()[name] = found
        return found
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'agentframe_core' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


__all__ = [  # noqa: RUF022 (grouped as in docs/api.md)
    # -- Agents in Python code
    "Agent",
    "Conversation",
    "ModelRetry",
    "OutputSpec",
    "RunEvent",
    "TokenEvent",
    "ToolEvent",
    "ProgressEvent",
    "ResultEvent",
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
    "Question",
    "Answer",
    "Config",
    "Limits",
    "PartConfig",
    "AdapterPart",
    "PartOf",
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
    "LocalLeasingStore",
    "SessionDeletedError",
    "TurnLeaseLostError",
    "AgentScan",
    "BudgetedBuilder",
    "Closeable",
    "PrioritizedLoader",
    "ScanningLoader",
    "hookimpl",
    "hookspec",
    "HookVerdict",
    "Kind",
    "Register",
    "EXTENSION_POINTS",
    "ExtensionPoint",
    "AgentDefinitionError",
    "AgentframeError",
    "ConfigError",
    "ConfigIssue",
    "EventLoopRunningError",
    "MissingFieldError",
    "UnknownAgentError",
    "UnknownPartError",
    "SlashCommand",
    "CommandScan",
    "CommandError",
    "UnknownCommandError",
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
    "create_private",
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
    "validate_block",
    "load_part",
    "PluginHost",
    "cache_dir",
    "data_dir",
    "UntrustedFolderError",
    "config_in_project",
    "confirm",
    "require_trust",
    "trust_all",
    "build_stack",
    "AgentCatalog",
    "find_agents",
    "CommandCatalog",
    "find_commands",
    "diagnose",
]
