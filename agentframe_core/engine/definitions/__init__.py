"""Agent definitions on disk: parsing, the folders they live in and what loaders share.

Choosing among every installed loader's definitions is `agentframe_core.assembly.catalog`'s job:

    catalog = find_agents(host, config, Path.cwd())
    agent = catalog.get("reviewer")           # or UnknownAgentError listing the known names
    prompt = assemble_system_prompt(agent, agent.tool_names(available), cwd=Path.cwd())

The format is documented in `docs/agents.md`. The built-in definitions are the `*.md` files
beside this module.
"""

from __future__ import annotations

from .folders import project_dirs, repo_root
from .frontmatter import Frontmatter, read_frontmatter, split_frontmatter
from .loader import BUILTIN_FOLDER, AgentFolder, FolderLoader
from .parse import definition_from_frontmatter, load_definition, parse_definition

__all__ = [
    "BUILTIN_FOLDER",
    "AgentFolder",
    "FolderLoader",
    "Frontmatter",
    "definition_from_frontmatter",
    "load_definition",
    "parse_definition",
    "project_dirs",
    "read_frontmatter",
    "repo_root",
    "split_frontmatter",
]
